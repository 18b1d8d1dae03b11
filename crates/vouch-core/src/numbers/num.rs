//! [`Num`]: an exact rational that stays in machine integers while it can.
//!
//! Almost every value vouch meets (statement amounts, ratios of them, printed decimals, powers of
//! ten) is a fraction whose numerator and denominator fit in an `i128`. Those are kept as a reduced
//! `i128` pair and every operation is checked; the moment a result would not fit, the operation is
//! redone on [`BigRational`] and the value lives there (and comes back to the small form when it
//! fits again). The representation is canonical — a value that fits is always small, in lowest
//! terms, denominator positive — so equality and hashing can look at the representation, and
//! results are exactly those of `BigRational`: nothing here ever rounds.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

/// An exact rational number (see the module docs for the representation).
#[derive(Clone)]
pub struct Num(Repr);

#[derive(Clone)]
enum Repr {
    /// `n / d` in lowest terms with `d > 0` and `n > i128::MIN` (so `-n` and `|n|` never
    /// overflow).
    Small(i128, i128),
    /// A value that does not fit `Small`; never holds one that does.
    Big(BigRational),
}

use Repr::{Big, Small};

/// `10^e` for `e` in `0..=38`: every power of ten an `i128` holds.
pub(crate) const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// Binary gcd; `gcd(0, b) = b`.
fn gcd(mut a: u128, mut b: u128) -> u128 {
    if a <= u64::MAX as u128 && b <= u64::MAX as u128 {
        return gcd_u64(a as u64, b as u64) as u128;
    }
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
        if a <= u64::MAX as u128 && b <= u64::MAX as u128 {
            return (gcd_u64(a as u64, b as u64) as u128) << shift;
        }
    }
}

impl Num {
    const ZERO: Num = Num(Small(0, 1));

    /// `numer / denom`, reduced. Panics when `denom` is zero, like [`BigRational::new`].
    pub fn new(numer: BigInt, denom: BigInt) -> Num {
        match (numer.to_i128(), denom.to_i128()) {
            (Some(n), Some(d)) => Num::ratio(n, d),
            _ => Num::from_big(BigRational::new(numer, denom)),
        }
    }

    /// An integer.
    pub fn from_integer(n: BigInt) -> Num {
        match n.to_i128() {
            Some(n) => Num::int(n),
            None => Num::from_big(BigRational::from_integer(n)),
        }
    }

    /// An integer from a machine integer.
    pub fn int(n: i128) -> Num {
        if n == i128::MIN {
            Num(Big(BigRational::from_integer(BigInt::from(n))))
        } else {
            Num(Small(n, 1))
        }
    }

    /// `n / d`, reduced. Panics when `d` is zero.
    pub fn ratio(n: i128, d: i128) -> Num {
        assert!(d != 0, "denominator == 0");
        if n == 0 {
            return Num::ZERO;
        }
        let g = gcd(n.unsigned_abs(), d.unsigned_abs());
        let (nu, du) = (div_u(n.unsigned_abs(), g), div_u(d.unsigned_abs(), g));
        let negative = (n < 0) != (d < 0);
        if nu <= i128::MAX as u128 && du <= i128::MAX as u128 {
            let nn = nu as i128;
            Num(Small(if negative { -nn } else { nn }, du as i128))
        } else {
            Num(Big(BigRational::new(BigInt::from(n), BigInt::from(d))))
        }
    }

    /// Adopt a big rational, moving it to the small form when it fits.
    pub fn from_big(r: BigRational) -> Num {
        match (r.numer().to_i128(), r.denom().to_i128()) {
            (Some(n), Some(d)) if n != i128::MIN => Num(Small(n, d)),
            _ => Num(Big(r)),
        }
    }

    /// The value as a big rational (allocates).
    pub fn to_big(&self) -> BigRational {
        match &self.0 {
            Small(n, d) => BigRational::new_raw(BigInt::from(*n), BigInt::from(*d)),
            Big(r) => r.clone(),
        }
    }

    /// The reduced numerator and denominator when they fit in `i128` (denominator positive).
    pub fn as_small(&self) -> Option<(i128, i128)> {
        match self.0 {
            Small(n, d) => Some((n, d)),
            Big(_) => None,
        }
    }

    /// The reduced numerator (sign carried here).
    pub fn numer(&self) -> BigInt {
        match &self.0 {
            Small(n, _) => BigInt::from(*n),
            Big(r) => r.numer().clone(),
        }
    }

    /// The reduced denominator (always positive).
    pub fn denom(&self) -> BigInt {
        match &self.0 {
            Small(_, d) => BigInt::from(*d),
            Big(r) => r.denom().clone(),
        }
    }

    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Small(_, d) => *d == 1,
            Big(r) => r.is_integer(),
        }
    }

    /// Truncate towards zero, like [`BigRational::to_integer`].
    pub fn to_integer(&self) -> BigInt {
        match &self.0 {
            Small(n, d) => BigInt::from(n / d),
            Big(r) => r.to_integer(),
        }
    }

    /// The largest integer not above the value.
    pub fn floor(&self) -> Num {
        match &self.0 {
            Small(n, d) => Num::int(n.div_euclid(*d)),
            Big(r) => Num::from_big(r.floor()),
        }
    }

    /// The smallest integer not below the value.
    pub fn ceil(&self) -> Num {
        -(-self).floor()
    }

    /// Truncate towards zero.
    pub fn trunc(&self) -> Num {
        match &self.0 {
            Small(n, d) => Num::int(n / d),
            Big(r) => Num::from_big(r.trunc()),
        }
    }

    /// `1 / self`. Panics on zero.
    pub fn recip(&self) -> Num {
        match &self.0 {
            Small(n, d) => {
                assert!(*n != 0, "denominator == 0");
                if *n < 0 {
                    Num(Small(-d, -n))
                } else {
                    Num(Small(*d, *n))
                }
            }
            Big(r) => Num::from_big(r.recip()),
        }
    }

    /// Compare with one half (the pass bound of the rounding rule) without building it.
    pub fn cmp_half(&self) -> Ordering {
        match &self.0 {
            Small(n, _) if *n <= 0 => Ordering::Less,
            // n/d vs 1/2 is n vs d − n; no overflow as both are positive.
            Small(n, d) => n.cmp(&(d - n)),
            Big(r) => (r + r).cmp(&BigRational::one()),
        }
    }

    fn signum_i(&self) -> i32 {
        match &self.0 {
            Small(n, _) => n.signum() as i32,
            Big(r) => {
                if r.is_negative() {
                    -1
                } else if r.is_zero() {
                    0
                } else {
                    1
                }
            }
        }
    }
}

/// `a / g` for a divisor `g > 0` of `a`: skips the 128-bit division (a library call) when `g`
/// is 1 or both fit 64 bits, as nearly all do.
fn div_i(a: i128, g: i128) -> i128 {
    if g == 1 {
        a
    } else if let (Ok(a64), Ok(g64)) = (i64::try_from(a), i64::try_from(g)) {
        // g > 1, so no i64::MIN / -1.
        (a64 / g64) as i128
    } else {
        a / g
    }
}

/// [`div_i`] for unsigned values.
fn div_u(a: u128, g: u128) -> u128 {
    if g == 1 {
        a
    } else if let (Ok(a64), Ok(g64)) = (u64::try_from(a), u64::try_from(g)) {
        (a64 / g64) as u128
    } else {
        a / g
    }
}

/// `a/b + c/d` in machine integers, or `None` on overflow.
fn add_small(a: i128, b: i128, c: i128, d: i128) -> Option<Num> {
    if b == d {
        return Some(Num::ratio(a.checked_add(c)?, b));
    }
    if b == 1 || d == 1 {
        // gcd(a·d + c, d) = gcd(c, d) = 1: already reduced.
        let (i, f, fd) = if b == 1 { (a, c, d) } else { (c, a, b) };
        let n = i.checked_mul(fd)?.checked_add(f)?;
        return (n != i128::MIN).then_some(Num(Small(n, fd)));
    }
    let g = gcd(b as u128, d as u128) as i128;
    let (b1, d1) = (div_i(b, g), div_i(d, g));
    let n = a.checked_mul(d1)?.checked_add(c.checked_mul(b1)?)?;
    let den = b.checked_mul(d1)?;
    Some(Num::ratio(n, den))
}

/// `a/b · c/d` in machine integers (both reduced, denominators positive), or `None` on overflow.
fn mul_small(a: i128, b: i128, c: i128, d: i128) -> Option<Num> {
    if a == 0 || c == 0 {
        return Some(Num::ZERO);
    }
    let g1 = gcd(a.unsigned_abs(), d as u128) as i128;
    let g2 = gcd(c.unsigned_abs(), b as u128) as i128;
    let n = div_i(a, g1).checked_mul(div_i(c, g2))?;
    let den = div_i(b, g2).checked_mul(div_i(d, g1))?;
    (n != i128::MIN).then_some(Num(Small(n, den)))
}

fn add(x: &Num, y: &Num) -> Num {
    if let (Small(a, b), Small(c, d)) = (&x.0, &y.0) {
        if let Some(r) = add_small(*a, *b, *c, *d) {
            return r;
        }
    }
    Num::from_big(x.to_big() + y.to_big())
}

fn sub(x: &Num, y: &Num) -> Num {
    if let (Small(a, b), Small(c, d)) = (&x.0, &y.0) {
        if let Some(r) = add_small(*a, *b, -*c, *d) {
            return r;
        }
    }
    Num::from_big(x.to_big() - y.to_big())
}

fn mul(x: &Num, y: &Num) -> Num {
    if let (Small(a, b), Small(c, d)) = (&x.0, &y.0) {
        if let Some(r) = mul_small(*a, *b, *c, *d) {
            return r;
        }
    }
    Num::from_big(x.to_big() * y.to_big())
}

fn div(x: &Num, y: &Num) -> Num {
    if let (Small(a, b), Small(c, d)) = (&x.0, &y.0) {
        assert!(*c != 0, "denominator == 0");
        let (c, d) = if *c < 0 { (-*d, -*c) } else { (*d, *c) };
        if let Some(r) = mul_small(*a, *b, c, d) {
            return r;
        }
    }
    Num::from_big(x.to_big() / y.to_big())
}

fn rem(x: &Num, y: &Num) -> Num {
    Num::from_big(x.to_big() % y.to_big())
}

macro_rules! binary_op {
    ($Trait:ident, $method:ident, $Assign:ident, $assign:ident, $imp:ident) => {
        impl $Trait<&Num> for &Num {
            type Output = Num;
            fn $method(self, rhs: &Num) -> Num {
                $imp(self, rhs)
            }
        }
        impl $Trait<Num> for &Num {
            type Output = Num;
            fn $method(self, rhs: Num) -> Num {
                $imp(self, &rhs)
            }
        }
        impl $Trait<&Num> for Num {
            type Output = Num;
            fn $method(self, rhs: &Num) -> Num {
                $imp(&self, rhs)
            }
        }
        impl $Trait<Num> for Num {
            type Output = Num;
            fn $method(self, rhs: Num) -> Num {
                $imp(&self, &rhs)
            }
        }
        impl $Assign<&Num> for Num {
            fn $assign(&mut self, rhs: &Num) {
                *self = $imp(self, rhs);
            }
        }
        impl $Assign<Num> for Num {
            fn $assign(&mut self, rhs: Num) {
                *self = $imp(self, &rhs);
            }
        }
    };
}

binary_op!(Add, add, AddAssign, add_assign, add);
binary_op!(Sub, sub, SubAssign, sub_assign, sub);
binary_op!(Mul, mul, MulAssign, mul_assign, mul);
binary_op!(Div, div, DivAssign, div_assign, div);
binary_op!(Rem, rem, RemAssign, rem_assign, rem);

impl Neg for &Num {
    type Output = Num;
    fn neg(self) -> Num {
        match &self.0 {
            Small(n, d) => Num(Small(-n, *d)),
            Big(r) => Num::from_big(-r),
        }
    }
}

impl Neg for Num {
    type Output = Num;
    fn neg(self) -> Num {
        -&self
    }
}

impl std::iter::Sum for Num {
    fn sum<I: Iterator<Item = Num>>(iter: I) -> Num {
        iter.fold(Num::ZERO, |acc, x| acc + x)
    }
}

impl<'a> std::iter::Sum<&'a Num> for Num {
    fn sum<I: Iterator<Item = &'a Num>>(iter: I) -> Num {
        iter.fold(Num::ZERO, |acc, x| acc + x)
    }
}

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        // The representation is canonical.
        match (&self.0, &other.0) {
            (Small(a, b), Small(c, d)) => a == c && b == d,
            (Big(x), Big(y)) => x == y,
            _ => false,
        }
    }
}

impl Eq for Num {}

impl Hash for Num {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match &self.0 {
            Small(n, d) => {
                0u8.hash(state);
                n.hash(state);
                d.hash(state);
            }
            Big(r) => {
                1u8.hash(state);
                r.numer().hash(state);
                r.denom().hash(state);
            }
        }
    }
}

impl Ord for Num {
    fn cmp(&self, other: &Num) -> Ordering {
        if let (Small(a, b), Small(c, d)) = (&self.0, &other.0) {
            if b == d {
                return a.cmp(c);
            }
            if let (Some(l), Some(r)) = (a.checked_mul(*d), c.checked_mul(*b)) {
                return l.cmp(&r);
            }
        }
        self.to_big().cmp(&other.to_big())
    }
}

impl PartialOrd for Num {
    fn partial_cmp(&self, other: &Num) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Zero for Num {
    fn zero() -> Num {
        Num::ZERO
    }
    fn is_zero(&self) -> bool {
        matches!(self.0, Small(0, _))
    }
}

impl One for Num {
    fn one() -> Num {
        Num(Small(1, 1))
    }
    fn is_one(&self) -> bool {
        matches!(self.0, Small(1, 1))
    }
}

impl num_traits::Num for Num {
    type FromStrRadixErr = num_rational::ParseRatioError;
    fn from_str_radix(s: &str, radix: u32) -> Result<Num, Self::FromStrRadixErr> {
        BigRational::from_str_radix(s, radix).map(Num::from_big)
    }
}

impl Signed for Num {
    fn abs(&self) -> Num {
        match &self.0 {
            Small(n, d) => Num(Small(n.abs(), *d)),
            Big(r) => Num::from_big(r.abs()),
        }
    }
    fn abs_sub(&self, other: &Num) -> Num {
        if self <= other {
            Num::ZERO
        } else {
            self - other
        }
    }
    fn signum(&self) -> Num {
        Num::int(self.signum_i() as i128)
    }
    fn is_positive(&self) -> bool {
        self.signum_i() > 0
    }
    fn is_negative(&self) -> bool {
        self.signum_i() < 0
    }
}

impl ToPrimitive for Num {
    fn to_i64(&self) -> Option<i64> {
        match &self.0 {
            Small(n, d) => (n / d).to_i64(),
            Big(r) => r.to_i64(),
        }
    }
    fn to_u64(&self) -> Option<u64> {
        match &self.0 {
            Small(n, d) => (n / d).to_u64(),
            Big(r) => r.to_u64(),
        }
    }
    fn to_i128(&self) -> Option<i128> {
        match &self.0 {
            Small(n, d) => Some(n / d),
            Big(r) => r.to_i128(),
        }
    }
    fn to_f64(&self) -> Option<f64> {
        // The same fast track as `BigRational` (both sides exact in an f64, one correctly rounded
        // division), else its exact algorithm, so results agree bit for bit.
        const EXACT: i128 = 1 << f64::MANTISSA_DIGITS;
        match &self.0 {
            Small(n, d) if (-EXACT..=EXACT).contains(n) && *d <= EXACT => {
                Some(*n as f64 / *d as f64)
            }
            _ => self.to_big().to_f64(),
        }
    }
}

impl From<BigInt> for Num {
    fn from(n: BigInt) -> Num {
        Num::from_integer(n)
    }
}

impl From<i64> for Num {
    fn from(n: i64) -> Num {
        Num::int(n as i128)
    }
}

impl From<BigRational> for Num {
    fn from(r: BigRational) -> Num {
        Num::from_big(r)
    }
}

impl From<&Num> for BigRational {
    fn from(n: &Num) -> BigRational {
        n.to_big()
    }
}

impl fmt::Display for Num {
    /// `n` for integers, else `n/d` — as [`BigRational`] prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Small(n, 1) => write!(f, "{n}"),
            Small(n, d) => write!(f, "{n}/{d}"),
            Big(r) => fmt::Display::fmt(r, f),
        }
    }
}

impl fmt::Debug for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ratio")
            .field("numer", &self.numer())
            .field("denom", &self.denom())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn big(n: &Num) -> BigRational {
        n.to_big()
    }

    /// Is the representation canonical (small whenever it fits)?
    fn canonical(n: &Num) -> bool {
        match &n.0 {
            Small(a, b) => *b > 0 && *a != i128::MIN && gcd(a.unsigned_abs(), *b as u128) == 1,
            Big(r) => Num::from_big(r.clone()).as_small().is_none(),
        }
    }

    /// Numerators from tiny to far beyond i128, so that overflow paths are exercised.
    fn arb_int() -> impl Strategy<Value = BigInt> {
        prop_oneof![
            (-1000i64..1000).prop_map(BigInt::from),
            any::<i64>().prop_map(BigInt::from),
            any::<i128>().prop_map(BigInt::from),
            (any::<i128>(), any::<u64>()).prop_map(|(a, b)| BigInt::from(a) * BigInt::from(b)),
            (0u32..39, any::<bool>()).prop_map(|(e, neg)| {
                let p = BigInt::from(10).pow(e);
                if neg {
                    -p
                } else {
                    p
                }
            }),
            Just(BigInt::from(i128::MIN)),
            Just(BigInt::from(i128::MAX)),
            Just(-BigInt::from(i128::MAX)),
        ]
    }

    fn arb_nonzero() -> impl Strategy<Value = BigInt> {
        arb_int().prop_filter("non-zero", |n| !n.is_zero())
    }

    fn arb_num() -> impl Strategy<Value = (Num, BigRational)> {
        (arb_int(), arb_nonzero()).prop_map(|(n, d)| {
            let r = BigRational::new(n.clone(), d.clone());
            (Num::new(n, d), r)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn arithmetic_agrees_exactly_with_big_rationals((x, bx) in arb_num(), (y, by) in arb_num()) {
            prop_assert_eq!(big(&x), bx.clone());
            prop_assert!(canonical(&x));
            let results = [
                (&x + &y, &bx + &by),
                (&x - &y, &bx - &by),
                (&x * &y, &bx * &by),
                (-&x, -&bx),
                (x.abs(), bx.abs()),
                (x.floor(), bx.floor()),
                (x.ceil(), bx.ceil()),
                (x.trunc(), bx.trunc()),
            ];
            for (got, want) in results {
                prop_assert!(canonical(&got));
                prop_assert_eq!(big(&got), want);
            }
            if !by.is_zero() {
                let q = &x / &y;
                prop_assert!(canonical(&q));
                prop_assert_eq!(big(&q), &bx / &by);
                prop_assert_eq!(big(&(&x % &y)), &bx % &by);
            }
            prop_assert_eq!(x.cmp(&y), bx.cmp(&by));
            prop_assert_eq!(x == y, bx == by);
            prop_assert_eq!(x.is_integer(), bx.is_integer());
            prop_assert_eq!(x.to_integer(), bx.to_integer());
            prop_assert_eq!(x.is_negative(), bx.is_negative());
            prop_assert_eq!(x.is_positive(), bx.is_positive());
            prop_assert_eq!(x.is_zero(), bx.is_zero());
            prop_assert_eq!(x.to_string(), bx.to_string());
            prop_assert_eq!(x.to_f64().map(f64::to_bits), bx.to_f64().map(f64::to_bits));
            prop_assert_eq!(x.to_i64(), bx.to_i64());
        }

        #[test]
        fn owned_and_borrowed_operands_agree((x, _) in arb_num(), (y, _) in arb_num()) {
            prop_assert_eq!(x.clone() + y.clone(), &x + &y);
            prop_assert_eq!(x.clone() - &y, &x - y.clone());
            prop_assert_eq!(x.clone() * &y, &x * y.clone());
            let mut z = x.clone();
            z += &y;
            z -= &y;
            prop_assert_eq!(&z, &x);
        }

        #[test]
        fn equal_values_hash_alike((x, bx) in arb_num()) {
            use std::collections::hash_map::DefaultHasher;
            let h = |n: &Num| { let mut s = DefaultHasher::new(); n.hash(&mut s); s.finish() };
            let roundtrip = Num::from_big(bx.clone() * BigRational::from_integer(BigInt::from(7)))
                / Num::int(7);
            prop_assert_eq!(&roundtrip, &x);
            prop_assert_eq!(h(&roundtrip), h(&x));
        }
    }

    #[test]
    fn results_leaving_and_reentering_machine_integers_stay_exact() {
        let max = Num::int(i128::MAX);
        let over = &max + &max;
        assert!(over.as_small().is_none());
        assert_eq!(
            big(&over),
            BigRational::from_integer(BigInt::from(i128::MAX) * 2)
        );
        let back = over / Num::int(2);
        assert_eq!(back.as_small(), Some((i128::MAX, 1)));
        assert!(Num::int(i128::MIN).as_small().is_none());
        assert_eq!(-(-Num::int(i128::MIN)), Num::int(i128::MIN));
    }

    #[test]
    fn prints_like_big_rationals() {
        assert_eq!(Num::ratio(6, -4).to_string(), "-3/2");
        assert_eq!(Num::int(-7).to_string(), "-7");
        assert_eq!(
            format!("{:?}", Num::ratio(1, 2)),
            format!("{:?}", BigRational::new(1.into(), 2.into()))
        );
    }
}
