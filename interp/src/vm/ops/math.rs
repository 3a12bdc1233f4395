//! The `math` module's functions on `f64` (upstream `vm/modules/math.py`).
//! Decision: they follow the C library (IEEE 754), as upstream's compiled
//! code does: `sqrt(-1.0)` is `nan` and `log(0.0)` is `-inf` where
//! upstream's interpreter would leak a Python `ValueError`.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Sqrt,
    Cos,
    Sin,
    Tan,
    Log,
    Log10,
    Exp,
    Acos,
    Asin,
    Atan,
    Atan2,
    Ceil,
    Floor,
    Pow,
    Fabs,
}

impl MathFn {
    pub const ALL: [MathFn; 15] = [
        MathFn::Sqrt,
        MathFn::Cos,
        MathFn::Sin,
        MathFn::Tan,
        MathFn::Log,
        MathFn::Log10,
        MathFn::Exp,
        MathFn::Acos,
        MathFn::Asin,
        MathFn::Atan,
        MathFn::Atan2,
        MathFn::Ceil,
        MathFn::Floor,
        MathFn::Pow,
        MathFn::Fabs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Cos => "cos",
            MathFn::Sin => "sin",
            MathFn::Tan => "tan",
            MathFn::Log => "log",
            MathFn::Log10 => "log10",
            MathFn::Exp => "exp",
            MathFn::Acos => "acos",
            MathFn::Asin => "asin",
            MathFn::Atan => "atan",
            MathFn::Atan2 => "atan2",
            MathFn::Ceil => "ceil",
            MathFn::Floor => "floor",
            MathFn::Pow => "pow",
            MathFn::Fabs => "fabs",
        }
    }

    pub fn find(name: &str) -> Option<MathFn> {
        MathFn::ALL.into_iter().find(|m| m.name() == name)
    }

    /// How many `f64` arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Atan2 | MathFn::Pow => 2,
            _ => 1,
        }
    }

    /// The result for `args` (`arity()` of them).
    pub fn apply(self, args: &[f64]) -> f64 {
        let x = args[0];
        let y = args.get(1).copied().unwrap_or(0.0);
        match self {
            MathFn::Sqrt => x.sqrt(),
            MathFn::Cos => x.cos(),
            MathFn::Sin => x.sin(),
            MathFn::Tan => x.tan(),
            MathFn::Log => x.ln(),
            MathFn::Log10 => x.log10(),
            MathFn::Exp => x.exp(),
            MathFn::Acos => x.acos(),
            MathFn::Asin => x.asin(),
            MathFn::Atan => x.atan(),
            MathFn::Atan2 => x.atan2(y),
            MathFn::Ceil => x.ceil(),
            MathFn::Floor => x.floor(),
            MathFn::Pow => x.powf(y),
            MathFn::Fabs => x.abs(),
        }
    }
}

/// The module's constants.
pub fn constant(name: &str) -> Option<f64> {
    Some(match name {
        "pi" => std::f64::consts::PI,
        "tau" => std::f64::consts::TAU,
        "e" => std::f64::consts::E,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_values_follow_ieee() {
        for m in MathFn::ALL {
            assert_eq!(MathFn::find(m.name()), Some(m));
        }
        assert_eq!(MathFn::Sqrt.apply(&[64.0]), 8.0);
        assert!(MathFn::Sqrt.apply(&[-1.0]).is_nan());
        assert_eq!(MathFn::Log.apply(&[0.0]), f64::NEG_INFINITY);
        assert_eq!(MathFn::Atan2.apply(&[0.0, 1.0]), 0.0);
        assert_eq!(MathFn::Pow.apply(&[2.0, 10.0]), 1024.0);
        assert_eq!(MathFn::Ceil.apply(&[1.3]), 2.0);
        assert_eq!(MathFn::Fabs.apply(&[-0.0]).to_bits(), 0.0f64.to_bits());
    }
}
