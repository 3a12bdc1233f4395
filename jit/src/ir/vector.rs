//! Vector types and the semantics of vector ops (`SIMD[T, N]`).
//!
//! A vector is `n` lanes of one lane type, `n` a power of two from 1 to 16
//! (every width SPy's `simd` module allows). It is not a word: the
//! evaluator keeps its lanes as canonical words, the machine code keeps it
//! in a run of frame slots (lane `i` at byte `i * lane size`, `Bool` lanes
//! one byte each, 0 or 1), whatever the width of the host's vector
//! registers: an op walks the vector in register-sized chunks (16 bytes
//! with SSE2, 32 with AVX2), so a vector wider than a register is several
//! chunks and one narrower than a register is a partial load. Vectors are
//! never parameters, results or call arguments: the front end passes their
//! lanes.
//!
//! The lane-wise semantics are the scalar ones of [`super::sem`], applied
//! lane by lane; this module is their one definition for vectors.

use super::{sem, BinOp, CmpOp, Ty, Word};
use std::fmt;

/// The type of a vector's lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    I32,
    I64,
    F32,
    F64,
    /// Comparison masks: 0 or 1 per lane, one byte each in memory.
    Bool,
}

impl Lane {
    pub const ALL: [Lane; 5] = [Lane::I32, Lane::I64, Lane::F32, Lane::F64, Lane::Bool];

    /// The scalar type of one lane.
    pub fn ty(self) -> Ty {
        match self {
            Lane::I32 => Ty::I32,
            Lane::I64 => Ty::I64,
            Lane::F32 => Ty::F32,
            Lane::F64 => Ty::F64,
            Lane::Bool => Ty::Bool,
        }
    }

    /// The lane type of a scalar type, if vectors of it exist.
    pub fn of(t: Ty) -> Option<Lane> {
        Some(match t {
            Ty::I32 => Lane::I32,
            Ty::I64 => Lane::I64,
            Ty::F32 => Lane::F32,
            Ty::F64 => Lane::F64,
            Ty::Bool => Lane::Bool,
            _ => return None,
        })
    }

    /// Bytes of one lane in memory.
    pub fn size(self) -> u32 {
        match self {
            Lane::I32 | Lane::F32 => 4,
            Lane::I64 | Lane::F64 => 8,
            Lane::Bool => 1,
        }
    }
}

/// A vector type: `n` lanes of `lane`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VecTy {
    pub lane: Lane,
    pub n: u8,
}

impl VecTy {
    /// The lane counts a vector may have.
    pub const COUNTS: [u8; 5] = [1, 2, 4, 8, 16];

    /// `None` unless `n` is a power of two from 1 to 16.
    pub fn new(lane: Lane, n: u32) -> Option<VecTy> {
        (n.is_power_of_two() && n <= 16).then_some(VecTy { lane, n: n as u8 })
    }

    /// Bytes of the lanes in memory.
    pub fn bytes(self) -> u32 {
        self.lane.size() * u32::from(self.n)
    }

    /// 8-byte frame slots the vector occupies.
    pub fn slots(self) -> u32 {
        self.bytes().div_ceil(8)
    }

    /// The same lane count with other lanes.
    pub fn with_lane(self, lane: Lane) -> VecTy {
        VecTy { lane, n: self.n }
    }
}

impl fmt::Display for VecTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.lane.ty(), self.n)
    }
}

/// Lane-wise `Add`/`Sub`/`Mul` of canonical lane words.
pub fn binary(op: BinOp, lane: Lane, a: &[Word], b: &[Word]) -> Vec<Word> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| sem::binary(op, lane.ty(), x, y))
        .collect()
}

/// Lane-wise float division; `None` if any lane of `b` is ±0.0.
pub fn fdiv(lane: Lane, a: &[Word], b: &[Word]) -> Option<Vec<Word>> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| sem::fdiv(lane.ty(), x, y))
        .collect()
}

/// Lane-wise comparison: `Bool` lane words.
pub fn cmp(c: CmpOp, lane: Lane, a: &[Word], b: &[Word]) -> Vec<Word> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| Word::from(sem::cmp(c, lane.ty(), x, y)))
        .collect()
}

/// Lane-wise conversion.
pub fn convert(from: Lane, to: Lane, a: &[Word]) -> Vec<Word> {
    a.iter().map(|&x| sem::convert(from.ty(), to.ty(), x)).collect()
}

/// The lane conversions [`super::VOp::Convert`] allows (exact ones).
pub fn convertible(from: Lane, to: Lane) -> bool {
    matches!((from, to), (Lane::I32, Lane::F64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_and_layout() {
        for lane in Lane::ALL {
            for n in VecTy::COUNTS {
                let v = VecTy::new(lane, n.into()).expect("allowed");
                assert_eq!(v.bytes(), lane.size() * u32::from(n));
                assert!(v.slots() * 8 >= v.bytes());
            }
        }
        assert_eq!(VecTy::new(Lane::F64, 3), None);
        assert_eq!(VecTy::new(Lane::F64, 32), None);
        assert_eq!(VecTy::new(Lane::F64, 0), None);
    }

    #[test]
    fn lanes_follow_the_scalar_rules() {
        let max = i32::MAX as i64 as Word;
        assert_eq!(
            binary(BinOp::Add, Lane::I32, &[max, 6], &[1, 1]),
            vec![i32::MIN as i64 as Word, 7]
        );
        assert_eq!(fdiv(Lane::F64, &[1f64.to_bits()], &[(-0f64).to_bits()]), None);
        let nan = f64::NAN.to_bits();
        assert_eq!(cmp(CmpOp::Ne, Lane::F64, &[nan], &[nan]), vec![1]);
        assert_eq!(cmp(CmpOp::Eq, Lane::F64, &[nan], &[nan]), vec![0]);
        assert_eq!(
            convert(Lane::I32, Lane::F64, &[u64::MAX]),
            vec![(-1f64).to_bits()]
        );
    }
}
