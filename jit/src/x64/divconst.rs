//! Unsigned division by a constant as a multiplication: the plan (magic
//! multiplier and shifts) that computes `n / d` exactly for every dividend
//! `n` in `0..=n_max`. Code generation ([`super::codegen`]'s `divmod`)
//! reduces signed floor division and every remainder to this.
//!
//! With `m = ceil(2^k / d)` and `e = m·d − 2^k` (`0 <= e < d`),
//! `floor(m·n / 2^k) = floor(n / d)` whenever `e·n < 2^k`: writing
//! `n = q·d + r`, `m·n / 2^k = q + (r + e·n / 2^k) / d` and `r <= d − 1`.
//! The plan takes the smallest `k >= 64` for which that holds on
//! `n <= n_max` with `m < 2^64` (then `q = mulhi(n, m) >> (k − 64)`); a
//! dividend range that needs a 65-bit multiplier (only possible when
//! `n_max >= 2^63`) uses `m − 2^64` and the carry-free
//! `t = mulhi(n, m'); q = (t + ((n − t) >> 1)) >> (l − 1)`, `l = ceil(log2 d)`
//! (Granlund and Montgomery, "Division by invariant integers using
//! multiplication", 1994, §4).

/// How to compute `n / d` on `0..=n_max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UDiv {
    /// `d == 1`: `n`.
    Identity,
    /// `d == 2^k`: `n >> k`.
    Shift(u8),
    /// `mulhi(n, m) >> s`.
    MulHi { m: u64, s: u8 },
    /// `t = mulhi(n, m); (t + ((n - t) >> 1)) >> s`.
    MulHiAdd { m: u64, s: u8 },
}

/// The plan for dividing by `d` (non-zero) any dividend up to `n_max`.
pub fn plan(d: u64, n_max: u64) -> UDiv {
    assert!(d != 0, "division by a zero constant has no plan");
    if d == 1 {
        return UDiv::Identity;
    }
    if d.is_power_of_two() {
        return UDiv::Shift(d.trailing_zeros() as u8);
    }
    let d128 = u128::from(d);
    for k in 64..=127u32 {
        let two_k = 1u128 << k;
        let m = two_k.div_ceil(d128);
        if m >> 64 != 0 {
            break;
        }
        let e = m * d128 - two_k;
        // e < d <= 2^64 and n_max < 2^64: the product fits.
        if e * u128::from(n_max) < two_k {
            return UDiv::MulHi {
                m: m as u64,
                s: (k - 64) as u8,
            };
        }
    }
    // d is not a power of two, so 2 <= l <= 64 and 2^(l-1) < d < 2^l.
    let l = 64 - (d - 1).leading_zeros();
    let m = ((1u128 << 64) * ((1u128 << l) - d128)) / d128 + 1;
    debug_assert!(m >> 64 == 0);
    UDiv::MulHiAdd {
        m: m as u64,
        s: (l - 1) as u8,
    }
}

/// What the plan's instructions compute (the tests' model of the emitted
/// sequence).
pub fn apply(p: UDiv, n: u64) -> u64 {
    let mulhi = |a: u64, b: u64| ((u128::from(a) * u128::from(b)) >> 64) as u64;
    match p {
        UDiv::Identity => n,
        UDiv::Shift(k) => n >> k,
        UDiv::MulHi { m, s } => mulhi(n, m) >> s,
        UDiv::MulHiAdd { m, s } => {
            let t = mulhi(n, m);
            (t + ((n - t) >> 1)) >> s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*).
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed | 1;
        move || {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    fn dividends(n_max: u64, next: &mut impl FnMut() -> u64) -> Vec<u64> {
        let mut v = vec![0, 1, 2, n_max, n_max - 1, n_max / 2, n_max / 2 + 1];
        for _ in 0..200 {
            v.push(next() % n_max.saturating_add(1).max(1));
            v.push(next() >> (next() % 64) & n_max);
        }
        v.retain(|&n| n <= n_max);
        v
    }

    fn check(d: u64, n_max: u64, ns: &[u64]) {
        let p = plan(d, n_max);
        for &n in ns {
            assert_eq!(apply(p, n), n / d, "{n} / {d} (n_max {n_max}, {p:?})");
        }
        // Every quotient boundary near the ends of the range.
        for q in [1u64, 2, n_max / d] {
            if let Some(n) = q.checked_mul(d) {
                for n in [n.wrapping_sub(1), n] {
                    if n <= n_max {
                        assert_eq!(apply(p, n), n / d, "{n} / {d} (n_max {n_max}, {p:?})");
                    }
                }
            }
        }
    }

    #[test]
    fn every_divisor_and_dividend_of_sixteen_bits() {
        // 16-bit dividends (the i8/u8 ranges of code generation are within).
        let all: Vec<u64> = (0..=0xFFFF).collect();
        for d in 1..=0xFFFFu64 {
            let p = plan(d, 0xFFFF);
            for &n in all.iter().step_by(if d < 512 { 1 } else { 61 }) {
                assert_eq!(apply(p, n), n / d, "{n} / {d} ({p:?})");
            }
        }
    }

    #[test]
    fn random_divisors_on_the_ranges_codegen_uses() {
        let mut next = rng(0x5eed);
        let ranges = [
            u64::from(u8::MAX),
            i8::MAX as u64,
            1 << 7,
            u64::from(u32::MAX),
            i32::MAX as u64,
            1 << 31,
            u64::MAX,
            i64::MAX as u64,
            1 << 63,
        ];
        for &n_max in &ranges {
            let ns = dividends(n_max, &mut next);
            let mut ds: Vec<u64> = (1..=300).collect();
            for k in 1..64 {
                for d in [(1u64 << k) - 1, 1 << k, (1 << k) + 1] {
                    ds.push(d);
                }
            }
            ds.extend([7, 10, 1000, 641, 6_700_417, u64::MAX, u64::MAX - 1]);
            for _ in 0..300 {
                ds.push(next() >> (next() % 64));
            }
            ds.retain(|&d| d != 0 && d <= n_max.max(1));
            for d in ds {
                check(d, n_max, &ns);
            }
        }
    }

    #[test]
    fn signed_ranges_never_need_the_wide_multiplier() {
        // |c| of a signed divisor is at most 2^(w-1); the dividends of the
        // signed reduction are at most 2^(w-1) as well.
        let mut next = rng(7);
        for bits in [8u32, 32, 64] {
            let top = 1u64 << (bits - 1);
            for _ in 0..2000 {
                let d = (next() % top) + 1;
                assert!(!matches!(plan(d, top), UDiv::MulHiAdd { .. }), "{d}");
            }
        }
        assert_eq!(
            plan(7, u64::MAX),
            UDiv::MulHiAdd {
                m: 0x2492_4924_9249_2493,
                s: 2
            }
        );
    }
}
