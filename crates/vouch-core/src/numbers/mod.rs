//! Printed numbers and the rounding rule (contract §7).
//!
//! Every number vouch compares is first parsed into a [`Printed`]: its exact value, the number of
//! digits after the decimal point as printed, and the decorations it carried (`%`, `x`, `$`,
//! parentheses). Recomputed values are exact rationals ([`Num`]), so threshold and rounding
//! decisions never go through binary floating point.

mod num;

pub use num::Num;
use num::POW10;
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::fmt;

/// `10^e` as an exact number (negative `e` gives `1/10^|e|`).
pub fn pow10(e: i32) -> Num {
    match POW10.get(e.unsigned_abs() as usize) {
        Some(&p) if e >= 0 => Num::int(p),
        Some(&p) => Num::ratio(1, p),
        None => {
            let p = BigInt::from(10u32).pow(e.unsigned_abs());
            if e >= 0 {
                Num::from_integer(p)
            } else {
                Num::new(BigInt::one(), p)
            }
        }
    }
}

pub fn int(n: i64) -> Num {
    Num::int(n as i128)
}

/// Parse a plain decimal literal (`-12.5`, `0.15`) exactly; used for spec thresholds.
pub fn parse_decimal(s: &str) -> Option<Num> {
    let p = parse_number(s)?;
    if p.percent || p.multiple || p.currency || p.parenthesised {
        return None;
    }
    Some(p.value)
}

/// A number as printed in an artifact or the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Printed {
    /// The trimmed text as it appeared.
    pub raw: String,
    /// Exact value in its own unit (`45.21%` has value 45.21).
    pub value: Num,
    /// Digits after the decimal point (negative for `1.5e3`-style exponents).
    pub decimals: i32,
    /// Significant digits as printed (`45%` has 2, `0.4521` has 4).
    pub significant: u32,
    pub percent: bool,
    pub multiple: bool,
    pub currency: bool,
    pub parenthesised: bool,
}

impl Printed {
    /// One unit of the last printed digit.
    pub fn unit(&self) -> Num {
        pow10(-self.decimals)
    }

    /// The interval `[v - unit/2, v + unit/2]` the printed number stands for.
    pub fn interval(&self) -> Interval {
        let half = self.unit() / int(2);
        Interval {
            lo: &self.value - &half,
            hi: &self.value + &half,
        }
    }

    /// Rescale the printed value (e.g. a percent read as a fraction): value and unit both scale.
    pub fn scaled(&self, factor: &Num) -> Interval {
        let iv = self.interval();
        let (a, b) = (iv.lo * factor, iv.hi * factor);
        if a <= b {
            Interval { lo: a, hi: b }
        } else {
            Interval { lo: b, hi: a }
        }
    }
}

impl fmt::Display for Printed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

/// The longest printed number vouch reads, in bytes: exact arithmetic on longer literals costs
/// more than any real figure is worth, and a longer one is said to be too long, not misread.
pub const MAX_NUMBER_LEN: usize = 512;

/// Parse a printed number: optional sign (`-`, `+`, `−`), parentheses for negatives, a leading
/// currency sign, thousands separators in valid groups, an exponent, and a trailing `%` or `x`.
/// Returns `None` for anything else (text, malformed grouping, empty).
pub fn parse_number(text: &str) -> Option<Printed> {
    let raw = text.trim();
    if raw.is_empty() || raw.len() > MAX_NUMBER_LEN {
        return None;
    }
    let mut s = raw;
    let mut negative = false;
    let mut parenthesised = false;
    if let Some(inner) = s.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        parenthesised = true;
        negative = true;
        s = inner.trim();
    }
    let mut percent = false;
    let mut multiple = false;
    if let Some(r) = s.strip_suffix('%') {
        percent = true;
        s = r.trim_end();
    } else if let Some(r) = s
        .strip_suffix('x')
        .or_else(|| s.strip_suffix('X'))
        .or_else(|| s.strip_suffix('×'))
    {
        multiple = true;
        s = r.trim_end();
    }
    let mut currency = false;
    let mut sign_seen = false;
    loop {
        if let Some(r) = s.strip_prefix('$') {
            if currency {
                return None;
            }
            currency = true;
            s = r.trim_start();
        } else if let Some(r) = s.strip_prefix('-').or_else(|| s.strip_prefix('−')) {
            if sign_seen || parenthesised {
                return None;
            }
            sign_seen = true;
            negative = true;
            s = r;
        } else if let Some(r) = s.strip_prefix('+') {
            if sign_seen || parenthesised {
                return None;
            }
            sign_seen = true;
            s = r;
        } else {
            break;
        }
    }
    if s.is_empty() {
        return None;
    }
    // Split an exponent off.
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => {
            let e: i32 = s[i + 1..].parse().ok()?;
            if e.abs() > 30 {
                return None;
            }
            (&s[..i], e)
        }
        None => (s, 0),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((a, b)) => (a, b),
        None => (mantissa, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let int_digits = ungroup(int_part)?;
    if !frac_part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if int_digits.is_empty() && frac_part.is_empty() {
        return None;
    }
    let digits: String = format!("{int_digits}{frac_part}");
    let significant = digits.trim_start_matches('0').len().max(1) as u32;
    let m = if digits.is_empty() {
        Num::zero()
    } else if digits.len() <= 38 {
        Num::int(digits.parse().ok()?)
    } else {
        Num::from_integer(digits.parse().ok()?)
    };
    let m = if negative { -m } else { m };
    let decimals = frac_part.len() as i32 - exponent;
    let value = m * pow10(-decimals);
    Some(Printed {
        raw: raw.to_string(),
        value,
        decimals,
        significant,
        percent,
        multiple,
        currency,
        parenthesised,
    })
}

/// Remove valid thousands separators (`1,234,567`); reject malformed grouping (`1,23`).
fn ungroup(int_part: &str) -> Option<String> {
    if !int_part.contains(',') {
        return int_part
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| int_part.to_string());
    }
    let mut groups = int_part.split(',');
    let first = groups.next()?;
    if first.is_empty() || first.len() > 3 || !first.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut out = first.to_string();
    for g in groups {
        if g.len() != 3 || !g.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        out.push_str(g);
    }
    Some(out)
}

/// A closed interval of exact numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    pub lo: Num,
    pub hi: Num,
}

impl Interval {
    pub fn point(x: Num) -> Interval {
        Interval {
            lo: x.clone(),
            hi: x,
        }
    }
    pub fn add(&self, other: &Interval) -> Interval {
        Interval {
            lo: &self.lo + &other.lo,
            hi: &self.hi + &other.hi,
        }
    }
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }
    pub fn contains(&self, x: &Num) -> bool {
        &self.lo <= x && x <= &self.hi
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let places = places_for(&self.lo).max(places_for(&self.hi));
        write!(
            f,
            "[{}, {}]",
            show(&self.lo, places),
            show(&self.hi, places)
        )
    }
}

/// How a printed number compares with the recomputed value under §7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Agreement {
    /// Within half a unit of the last digit.
    Pass,
    /// Within one unit (truncation or double rounding).
    Warn,
    /// Beyond one unit.
    Fail,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    pub agreement: Agreement,
    /// Distance in units of the last printed digit.
    pub k: Num,
}

/// Judge printed `p` against recomputed `x` (in base units) read at `scale` (1 for fractions,
/// 100 for percents): `k = |x·scale − v| / 10^−d`, pass at `k ≤ 0.5`, warn at `k ≤ 1` (each with
/// the contract's `1e-9·|x|` slack), fail beyond.
pub fn judge(x: &Num, p: &Printed, scale: &Num) -> Judgement {
    if let Some(j) = judge_in_machine_integers(x, p, scale) {
        return j;
    }
    // In units of the last printed digit (multiply through by 10^d): with `k = |xs − v|·10^d`
    // and the slack `s = |xs|·10^d / 10^9`, pass is `k − s ≤ 1/2` and warn is `k − s ≤ 1`.
    let xs = x * scale;
    let per_unit = pow10(p.decimals);
    let k = (&xs - &p.value).abs() * &per_unit;
    let slack = xs.abs() * &per_unit / int(1_000_000_000);
    let excess = &k - &slack;
    let agreement = match excess.cmp_half() {
        std::cmp::Ordering::Less | std::cmp::Ordering::Equal => Agreement::Pass,
        std::cmp::Ordering::Greater if excess <= Num::one() => Agreement::Warn,
        std::cmp::Ordering::Greater => Agreement::Fail,
    };
    Judgement { agreement, k }
}

/// [`judge`] by one cross-multiplied comparison in `i128` (`None` when a product would overflow;
/// the caller then takes the rational path, which decides identically).
fn judge_in_machine_integers(x: &Num, p: &Printed, scale: &Num) -> Option<Judgement> {
    const BILLION: i128 = 1_000_000_000;
    let (a, b) = x.as_small()?;
    let (s, sd) = scale.as_small()?;
    let (c, d) = p.value.as_small()?;
    // xs = n/b; |xs − v| = dist/(b·d), all denominators positive.
    let (n, b) = (a.checked_mul(s)?, b.checked_mul(sd)?);
    let dist = n
        .checked_mul(d)?
        .checked_sub(c.checked_mul(b)?)?
        .checked_abs()?;
    let bd = b.checked_mul(d)?;
    let per_unit = *POW10.get(p.decimals.unsigned_abs() as usize)?;
    // excess = k − slack·10^dec = 10^dec·(dist·10^9 − |n|·d) / (b·d·10^9) = over / under.
    let over = dist
        .checked_mul(BILLION)?
        .checked_sub(n.checked_abs()?.checked_mul(d)?)?;
    let under = bd.checked_mul(BILLION)?;
    let (over, under, k) = if p.decimals >= 0 {
        let scaled = dist.checked_mul(per_unit)?;
        (over.checked_mul(per_unit)?, under, Num::ratio(scaled, bd))
    } else {
        let den = bd.checked_mul(per_unit)?;
        (over, under.checked_mul(per_unit)?, Num::ratio(dist, den))
    };
    let agreement = if over.checked_mul(2)? <= under {
        Agreement::Pass
    } else if over <= under {
        Agreement::Warn
    } else {
        Agreement::Fail
    };
    Some(Judgement { agreement, k })
}

/// Round half away from zero to `places` digits after the point and print.
pub fn show(x: &Num, places: u32) -> String {
    let scaled = x * pow10(places as i32);
    let (neg, digits) = match scaled.as_small() {
        Some((n, d)) => {
            // |n|/d rounded half away from zero: the quotient, plus one when the remainder is at
            // least half the denominator.
            let (q, r) = (n.unsigned_abs() / d as u128, n.unsigned_abs() % d as u128);
            let q = q + u128::from(r >= (d as u128) - r);
            (n < 0 && q != 0, q.to_string())
        }
        None => {
            let rounded = if scaled.is_negative() {
                -((-scaled) + Num::ratio(1, 2)).floor()
            } else {
                (scaled + Num::ratio(1, 2)).floor()
            };
            let n = rounded.to_integer();
            (n.is_negative(), n.abs().to_string())
        }
    };
    let places = places as usize;
    let body = if places == 0 {
        digits
    } else if digits.len() > places {
        format!(
            "{}.{}",
            &digits[..digits.len() - places],
            &digits[digits.len() - places..]
        )
    } else {
        format!("0.{}{}", "0".repeat(places - digits.len()), digits)
    };
    if neg && body.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        format!("-{body}")
    } else {
        body
    }
}

/// Enough places to show `x` with about six significant digits (at least 2, at most 12).
pub fn places_for(x: &Num) -> u32 {
    let f = x.to_f64().unwrap_or(0.0).abs();
    if f == 0.0 || !f.is_finite() {
        return 2;
    }
    let mag = f.log10().floor() as i32;
    (5 - mag).clamp(2, 12) as u32
}

/// Show a recomputed value for a reader: about six significant digits.
pub fn show_auto(x: &Num) -> String {
    show(x, places_for(x))
}

/// The shortest exact decimal for a terminating `x` (else about six significant digits).
pub fn show_exact(x: &Num) -> String {
    for places in 0..=28u32 {
        if (x * pow10(places as i32)).is_integer() {
            return show(x, places);
        }
    }
    show_auto(x)
}

/// `k` for display: two decimals.
pub fn show_k(k: &Num) -> String {
    show(k, 2)
}

pub fn to_f64(x: &Num) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

pub fn is_int(x: &Num) -> bool {
    x.is_integer()
}

pub fn one() -> Num {
    Num::one()
}

pub fn zero() -> Num {
    Num::zero()
}

/// How a ratio is printed: as a fraction (0.4521) or ×100 (45.21, 45.21 %, points).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scale {
    Fraction,
    Hundred,
}

impl Scale {
    pub fn factor(self) -> Num {
        match self {
            Scale::Fraction => one(),
            Scale::Hundred => int(100),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Scale::Fraction => "fraction",
            Scale::Hundred => "percent",
        }
    }
}

/// The outcome of choosing a scale by fit (contract §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScaleChoice {
    pub scale: Scale,
    /// A percent hint (header or `%` signs) pointed the other way.
    pub hint_contradicted: bool,
}

/// Choose the scale under which more of the `(recomputed, printed)` pairs have `k <= 1`; on a tie
/// more with `k <= 0.5`; then the percent hint (`hint`, or any printed `%`); then fraction.
pub fn fit_scale<'a>(
    pairs: impl IntoIterator<Item = (&'a Num, &'a Printed)> + Clone,
    hint: bool,
) -> ScaleChoice {
    let score = |s: Scale| {
        let f = s.factor();
        let mut within_one = 0usize;
        let mut within_half = 0usize;
        for (x, p) in pairs.clone() {
            let j = judge(x, p, &f);
            if j.agreement <= Agreement::Warn {
                within_one += 1;
            }
            if j.agreement == Agreement::Pass {
                within_half += 1;
            }
        }
        (within_one, within_half)
    };
    let hint = hint || pairs.clone().into_iter().any(|(_, p)| p.percent);
    let (fr, hu) = (score(Scale::Fraction), score(Scale::Hundred));
    let scale = if fr != hu {
        if hu > fr {
            Scale::Hundred
        } else {
            Scale::Fraction
        }
    } else if hint {
        Scale::Hundred
    } else {
        Scale::Fraction
    };
    ScaleChoice {
        scale,
        hint_contradicted: hint && scale == Scale::Fraction && fr != hu,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_rational::BigRational;

    fn p(s: &str) -> Printed {
        parse_number(s).unwrap_or_else(|| panic!("{s} should parse"))
    }

    #[test]
    fn parses_decorated_numbers() {
        assert_eq!(p("45.21%").value, parse_decimal("45.21").unwrap());
        assert!(p("45.21%").percent);
        assert_eq!(p("45.21%").decimals, 2);
        assert_eq!(p("(1,234.5)").value, parse_decimal("-1234.5").unwrap());
        assert_eq!(p("$1,234").value, int(1234));
        assert!(p("1.53x").multiple);
        assert_eq!(p("−0.5").value, parse_decimal("-0.5").unwrap());
        assert_eq!(p("-$12").value, int(-12));
        assert_eq!(p("1.5e3").decimals, -2);
        assert_eq!(p("45%").significant, 2);
        assert_eq!(p("0.4521").significant, 4);
        assert_eq!(p(".5").decimals, 1);
    }

    #[test]
    fn rejects_text_and_bad_grouping() {
        for s in [
            "", "abc", "1,23", "12,3456", "--1", "1.2.3", "$", "%", "(-1)", "1e", "n/a",
        ] {
            assert!(parse_number(s).is_none(), "{s}");
        }
    }

    #[test]
    fn judges_by_units_of_the_last_digit() {
        let x = parse_decimal("0.452149").unwrap();
        let j = judge(&x, &p("45.21"), &int(100));
        assert_eq!(j.agreement, Agreement::Pass);
        let j = judge(&x, &p("45.22"), &int(100));
        assert_eq!(j.agreement, Agreement::Warn);
        let j = judge(&x, &p("45.24"), &int(100));
        assert_eq!(j.agreement, Agreement::Fail);
    }

    #[test]
    fn a_tie_at_half_a_unit_passes() {
        let x = parse_decimal("0.45215").unwrap();
        assert_eq!(judge(&x, &p("0.4521"), &one()).agreement, Agreement::Pass);
        assert_eq!(judge(&x, &p("0.4522"), &one()).agreement, Agreement::Pass);
    }

    /// The rounding rule and printing written directly on `BigRational` (the original
    /// implementation), as the reference the fast paths must agree with.
    mod reference {
        use super::super::Agreement;
        use num_bigint::BigInt;
        use num_rational::BigRational;
        use num_traits::{One, Signed};

        pub fn pow10(e: i32) -> BigRational {
            let p = BigInt::from(10u32).pow(e.unsigned_abs());
            if e >= 0 {
                BigRational::from_integer(p)
            } else {
                BigRational::new(BigInt::one(), p)
            }
        }

        fn int(n: i64) -> BigRational {
            BigRational::from_integer(n.into())
        }

        pub fn judge(
            x: &BigRational,
            v: &BigRational,
            decimals: i32,
            scale: &BigRational,
        ) -> (Agreement, BigRational) {
            let xs = x * scale;
            let diff = (&xs - v).abs();
            let unit = pow10(-decimals);
            let slack = xs.abs() / int(1_000_000_000);
            let k = &diff / &unit;
            let agreement = if diff <= &unit / int(2) + &slack {
                Agreement::Pass
            } else if diff <= &unit + &slack {
                Agreement::Warn
            } else {
                Agreement::Fail
            };
            (agreement, k)
        }

        pub fn show(x: &BigRational, places: u32) -> String {
            let scaled = x * pow10(places as i32);
            let half = BigRational::new(1.into(), 2.into());
            let rounded = if scaled.is_negative() {
                -((-scaled) + half).floor()
            } else {
                (scaled + half).floor()
            };
            let n = rounded.to_integer();
            let digits = n.abs().to_string();
            let places = places as usize;
            let body = if places == 0 {
                digits
            } else if digits.len() > places {
                format!(
                    "{}.{}",
                    &digits[..digits.len() - places],
                    &digits[digits.len() - places..]
                )
            } else {
                format!("0.{}{}", "0".repeat(places - digits.len()), digits)
            };
            if n.is_negative() && body.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
                format!("-{body}")
            } else {
                body
            }
        }
    }

    /// Values from statement-sized fractions to ones far beyond `i128`.
    fn arb_value() -> impl proptest::strategy::Strategy<Value = Num> {
        use proptest::prelude::*;
        let int = prop_oneof![
            (-100_000i64..100_000).prop_map(BigInt::from),
            any::<i64>().prop_map(BigInt::from),
            any::<i128>().prop_map(BigInt::from),
            (any::<i128>(), any::<i128>()).prop_map(|(a, b)| BigInt::from(a) * BigInt::from(b)),
        ];
        let den = prop_oneof![
            (1i64..10_000).prop_map(BigInt::from),
            (0u32..30).prop_map(|e| BigInt::from(10).pow(e)),
            (1i128..i128::MAX).prop_map(BigInt::from),
            (1i128..i128::MAX, 1u64..u64::MAX).prop_map(|(a, b)| BigInt::from(a) * b),
        ];
        (int, den).prop_map(|(n, d)| Num::new(n, d))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        #[test]
        fn judge_agrees_with_the_big_rational_rule(
            x in arb_value(),
            near in proptest::bool::ANY,
            printed in arb_value(),
            places in 0u32..8,
            exponent in -3i32..4,
            hundred in proptest::bool::ANY,
        ) {
            let scale = if hundred { int(100) } else { one() };
            // Half the cases print x itself (rounded), so every agreement level is reached.
            let text = if near { show(&(&x * &scale), places) } else { show(&printed, places) };
            let text = if exponent != 0 { format!("{text}e{exponent}") } else { text };
            let Some(p) = parse_number(&text) else { return Ok(()) };
            let got = judge(&x, &p, &scale);
            let (agreement, k) = reference::judge(&x.to_big(), &p.value.to_big(), p.decimals, &scale.to_big());
            proptest::prop_assert_eq!(got.agreement, agreement);
            proptest::prop_assert_eq!(got.k.to_big(), k);
        }

        #[test]
        fn judge_agrees_at_the_half_and_one_unit_bounds(
            mantissa in -10_000_000i64..10_000_000,
            decimals in -2i32..7,
            offset in -20i64..=20,
            eighths in proptest::prelude::prop_oneof![proptest::strategy::Just(8i64), 1i64..16],
            nudge in -2i64..=2,
            hundred in proptest::bool::ANY,
        ) {
            // x·scale = v + (offset/eighths)·unit ± a hair around the 1e-9 slack.
            let v = int(mantissa) * pow10(-decimals);
            let text = show(&v, decimals.max(0) as u32);
            let text = if decimals < 0 { format!("{}e{}", show(&(&v * pow10(decimals)), 0), -decimals) } else { text };
            let p = parse_number(&text).unwrap();
            let scale = if hundred { int(100) } else { one() };
            let xs = &p.value + Num::ratio(offset as i128, eighths as i128) * p.unit()
                + &p.value.abs() * Num::ratio(nudge as i128, 2_000_000_000);
            let x = &xs / &scale;
            let got = judge(&x, &p, &scale);
            let (agreement, k) = reference::judge(&x.to_big(), &p.value.to_big(), p.decimals, &scale.to_big());
            proptest::prop_assert_eq!(got.agreement, agreement);
            proptest::prop_assert_eq!(got.k.to_big(), k);
        }

        #[test]
        fn show_agrees_with_the_big_rational_printing(x in arb_value(), places in 0u32..14) {
            proptest::prop_assert_eq!(show(&x, places), reference::show(&x.to_big(), places));
        }

        #[test]
        fn parsed_values_are_exact(n in proptest::prelude::any::<i128>(), frac in 0u32..40, exponent in -30i32..=30) {
            let digits = n.unsigned_abs().to_string();
            let (int_part, frac_part) = digits.split_at(digits.len().saturating_sub(frac as usize));
            let sign = if n < 0 { "-" } else { "" };
            let text = format!("{sign}{int_part}.{frac_part}e{exponent}");
            let p = parse_number(&text).unwrap();
            let want = BigRational::from_integer(n.into())
                * reference::pow10(exponent - frac_part.len() as i32);
            proptest::prop_assert_eq!(p.value.to_big(), want);
        }
    }

    #[test]
    fn the_billionth_slack_can_exceed_the_printed_unit() {
        // 1e-9 · 5,591,564 ≈ 0.0056 > 0.002: two thousandths off still passes (§7 slack).
        let x = int(5_591_564);
        let printed = p("5591564.002");
        assert_eq!(judge(&x, &printed, &one()).agreement, Agreement::Pass);
        let (agreement, _) =
            reference::judge(&x.to_big(), &printed.value.to_big(), 3, &one().to_big());
        assert_eq!(agreement, Agreement::Pass);
    }

    #[test]
    fn shows_rounded_half_away_from_zero() {
        assert_eq!(show(&parse_decimal("2.345").unwrap(), 2), "2.35");
        assert_eq!(show(&parse_decimal("-2.345").unwrap(), 2), "-2.35");
        assert_eq!(show(&parse_decimal("0.004").unwrap(), 2), "0.00");
        assert_eq!(show(&parse_decimal("-0.004").unwrap(), 2), "0.00");
        assert_eq!(show(&int(12), 0), "12");
    }
}
