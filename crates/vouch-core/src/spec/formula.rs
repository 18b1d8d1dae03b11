//! The formula language of the spec: `+ - * /`, parentheses, decimal literals, names, and the
//! functions `prev(e)`, `avg(e)`, `abs(e)`, `growth(e)` and `opt(e)` (a missing value reads as 0).
//!
//! Formulas are parsed once when the spec is loaded; names are resolved by the caller into
//! [`Ref`]s, and evaluation is exact. Undefinedness is part of the semantics: a missing input,
//! a year before the first, or a zero denominator make the whole value undefined.

use crate::numbers::{int, parse_decimal, Interval, Num};
use num_traits::{Signed, Zero};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Lit(Num),
    /// A name as written; `slot` is filled by [`Expr::resolve`].
    Name {
        name: String,
        slot: Option<Ref>,
    },
    Neg(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Call(Func, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Prev,
    Avg,
    Abs,
    Growth,
    Opt,
}

/// What a name refers to once resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ref {
    /// A source column, by index in the spec's column list.
    Column(usize),
    /// A metric's canonical value, by index in the spec's metric list.
    Metric(usize),
    /// The placeholder `x` of a movement rule: the item being judged.
    Item,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undefined {
    /// The year before the first year was needed.
    FirstYear,
    /// An input was blank or absent (the name is the input's).
    Missing(String),
    /// A denominator (or growth base) was zero.
    ZeroDenominator,
}

impl fmt::Display for Undefined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Undefined::FirstYear => f.write_str("no prior year"),
            Undefined::Missing(n) => write!(f, "{n} is missing"),
            Undefined::ZeroDenominator => f.write_str("zero denominator"),
        }
    }
}

/// The values a formula reads: `value(r, t)` for year index `t`.
pub trait Env {
    fn value(&self, r: Ref, t: usize) -> Result<Num, Undefined>;
}

/// Printed intervals a formula reads, for interval arithmetic (§7: sums of printed parts must
/// overlap the printed total).
pub trait IntervalEnv {
    fn interval(&self, r: Ref, t: usize) -> Option<Interval>;
}

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("formula `{formula}`: {message} at byte {at}")]
pub struct FormulaError {
    pub formula: String,
    pub message: String,
    pub at: usize,
}

impl Expr {
    pub fn parse(src: &str) -> Result<Expr, FormulaError> {
        let mut p = Parser { src, pos: 0 };
        let e = p.expr()?;
        p.skip_ws();
        if p.pos != src.len() {
            return Err(p.err("unexpected text"));
        }
        Ok(e)
    }

    /// Resolve every name with `f`; returns the first name `f` could not resolve.
    pub fn resolve(&mut self, f: &mut dyn FnMut(&str) -> Option<Ref>) -> Result<(), String> {
        match self {
            Expr::Lit(_) => Ok(()),
            Expr::Name { name, slot } => {
                *slot = Some(f(name).ok_or_else(|| name.clone())?);
                Ok(())
            }
            Expr::Neg(e) | Expr::Call(_, e) => e.resolve(f),
            Expr::Bin(_, a, b) => {
                a.resolve(f)?;
                b.resolve(f)
            }
        }
    }

    /// Every name the formula mentions, as written, in order (with repeats).
    pub fn names<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Lit(_) => {}
            Expr::Name { name, .. } => out.push(name),
            Expr::Neg(e) | Expr::Call(_, e) => e.names(out),
            Expr::Bin(_, a, b) => {
                a.names(out);
                b.names(out);
            }
        }
    }

    /// Every resolved reference in the formula.
    pub fn refs(&self, out: &mut Vec<Ref>) {
        match self {
            Expr::Lit(_) => {}
            Expr::Name { slot, .. } => out.extend(slot.iter().copied()),
            Expr::Neg(e) | Expr::Call(_, e) => e.refs(out),
            Expr::Bin(_, a, b) => {
                a.refs(out);
                b.refs(out);
            }
        }
    }

    /// Evaluate at year index `t`.
    pub fn eval(&self, env: &dyn Env, t: usize) -> Result<Num, Undefined> {
        match self {
            Expr::Lit(n) => Ok(n.clone()),
            Expr::Name { name, slot } => match slot {
                Some(r) => env.value(*r, t),
                None => Err(Undefined::Missing(name.clone())),
            },
            Expr::Neg(e) => Ok(-e.eval(env, t)?),
            Expr::Bin(op, a, b) => {
                let a = a.eval(env, t)?;
                let b = b.eval(env, t)?;
                Ok(match op {
                    Op::Add => a + b,
                    Op::Sub => a - b,
                    Op::Mul => a * b,
                    Op::Div => {
                        if b.is_zero() {
                            return Err(Undefined::ZeroDenominator);
                        }
                        a / b
                    }
                })
            }
            Expr::Call(func, e) => match func {
                Func::Prev => {
                    let p = t.checked_sub(1).ok_or(Undefined::FirstYear)?;
                    e.eval(env, p)
                }
                Func::Avg => {
                    let p = t.checked_sub(1).ok_or(Undefined::FirstYear)?;
                    Ok((e.eval(env, t)? + e.eval(env, p)?) / int(2))
                }
                Func::Abs => Ok(e.eval(env, t)?.abs()),
                Func::Growth => {
                    let p = t.checked_sub(1).ok_or(Undefined::FirstYear)?;
                    let x = e.eval(env, t)?;
                    let base = e.eval(env, p)?;
                    if base.is_zero() {
                        return Err(Undefined::ZeroDenominator);
                    }
                    Ok((x - &base) / base.abs())
                }
                Func::Opt => match e.eval(env, t) {
                    Err(Undefined::Missing(_)) => Ok(Num::zero()),
                    other => other,
                },
            },
        }
    }
}

impl Expr {
    /// Evaluate over intervals: the set of values the formula can take when every input lies
    /// anywhere in its printed interval. `None` when an input is missing, a year is out of
    /// range, or a divisor's interval contains zero.
    pub fn eval_interval(&self, env: &dyn IntervalEnv, t: usize) -> Option<Interval> {
        fn hull(v: [Num; 4]) -> Interval {
            let [a, b, c, d] = v;
            let lo = a.clone().min(b.clone()).min(c.clone()).min(d.clone());
            let hi = a.max(b).max(c).max(d);
            Interval { lo, hi }
        }
        match self {
            Expr::Lit(n) => Some(Interval::point(n.clone())),
            Expr::Name { slot, .. } => env.interval((*slot)?, t),
            Expr::Neg(e) => {
                let i = e.eval_interval(env, t)?;
                Some(Interval {
                    lo: -i.hi,
                    hi: -i.lo,
                })
            }
            Expr::Bin(op, a, b) => {
                let a = a.eval_interval(env, t)?;
                let b = b.eval_interval(env, t)?;
                Some(match op {
                    Op::Add => a.add(&b),
                    Op::Sub => Interval {
                        lo: &a.lo - &b.hi,
                        hi: &a.hi - &b.lo,
                    },
                    Op::Mul => hull([&a.lo * &b.lo, &a.lo * &b.hi, &a.hi * &b.lo, &a.hi * &b.hi]),
                    Op::Div => {
                        if b.contains(&Num::zero()) {
                            return None;
                        }
                        hull([&a.lo / &b.lo, &a.lo / &b.hi, &a.hi / &b.lo, &a.hi / &b.hi])
                    }
                })
            }
            Expr::Call(func, e) => match func {
                Func::Prev => e.eval_interval(env, t.checked_sub(1)?),
                Func::Avg => {
                    let x = e.eval_interval(env, t)?;
                    let p = e.eval_interval(env, t.checked_sub(1)?)?;
                    let s = x.add(&p);
                    Some(Interval {
                        lo: s.lo / int(2),
                        hi: s.hi / int(2),
                    })
                }
                Func::Abs => {
                    let i = e.eval_interval(env, t)?;
                    Some(if i.lo >= Num::zero() {
                        i
                    } else if i.hi <= Num::zero() {
                        Interval {
                            lo: -i.hi,
                            hi: -i.lo,
                        }
                    } else {
                        Interval {
                            lo: Num::zero(),
                            hi: (-i.lo).max(i.hi),
                        }
                    })
                }
                Func::Growth => {
                    let g = Expr::Bin(
                        Op::Div,
                        Box::new(Expr::Bin(
                            Op::Sub,
                            e.clone(),
                            Box::new(Expr::Call(Func::Prev, e.clone())),
                        )),
                        Box::new(Expr::Call(
                            Func::Abs,
                            Box::new(Expr::Call(Func::Prev, e.clone())),
                        )),
                    );
                    g.eval_interval(env, t)
                }
                Func::Opt => e
                    .eval_interval(env, t)
                    .or_else(|| Some(Interval::point(Num::zero()))),
            },
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0)
    }
}

impl Expr {
    fn write(&self, f: &mut fmt::Formatter<'_>, parent_prec: u8) -> fmt::Result {
        match self {
            Expr::Lit(n) => f.write_str(&crate::numbers::show_exact(n)),
            Expr::Name { name, .. } => f.write_str(name),
            Expr::Neg(e) => {
                f.write_str("-")?;
                e.write(f, 3)
            }
            Expr::Bin(op, a, b) => {
                let (prec, sym) = match op {
                    Op::Add => (1, "+"),
                    Op::Sub => (1, "-"),
                    Op::Mul => (2, "*"),
                    Op::Div => (2, "/"),
                };
                if prec < parent_prec {
                    f.write_str("(")?;
                }
                a.write(f, prec)?;
                write!(f, " {sym} ")?;
                b.write(f, prec + 1)?;
                if prec < parent_prec {
                    f.write_str(")")?;
                }
                Ok(())
            }
            Expr::Call(func, e) => {
                let name = match func {
                    Func::Prev => "prev",
                    Func::Avg => "avg",
                    Func::Abs => "abs",
                    Func::Growth => "growth",
                    Func::Opt => "opt",
                };
                write!(f, "{name}(")?;
                e.write(f, 0)?;
                f.write_str(")")
            }
        }
    }
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, message: &str) -> FormulaError {
        FormulaError {
            formula: self.src.to_string(),
            message: message.to_string(),
            at: self.pos,
        }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> Result<Expr, FormulaError> {
        let mut lhs = self.term()?;
        loop {
            let op = if self.eat(b'+') {
                Op::Add
            } else if self.eat(b'-') {
                Op::Sub
            } else {
                return Ok(lhs);
            };
            let rhs = self.term()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn term(&mut self) -> Result<Expr, FormulaError> {
        let mut lhs = self.unary()?;
        loop {
            let op = if self.eat(b'*') {
                Op::Mul
            } else if self.eat(b'/') {
                Op::Div
            } else {
                return Ok(lhs);
            };
            let rhs = self.unary()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self) -> Result<Expr, FormulaError> {
        if self.eat(b'-') {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, FormulaError> {
        self.skip_ws();
        if self.eat(b'(') {
            let e = self.expr()?;
            if !self.eat(b')') {
                return Err(self.err("expected `)`"));
            }
            return Ok(e);
        }
        let start = self.pos;
        match self.peek() {
            Some(c) if c.is_ascii_digit() || c == b'.' => {
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'.') {
                    self.pos += 1;
                }
                let lit = &self.src[start..self.pos];
                parse_decimal(lit)
                    .map(Expr::Lit)
                    .ok_or_else(|| self.err("bad number"))
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    self.pos += 1;
                }
                let name = &self.src[start..self.pos];
                let func = match name {
                    "prev" => Some(Func::Prev),
                    "avg" => Some(Func::Avg),
                    "abs" => Some(Func::Abs),
                    "growth" => Some(Func::Growth),
                    "opt" => Some(Func::Opt),
                    _ => None,
                };
                match func {
                    Some(func) => {
                        if !self.eat(b'(') {
                            return Err(self.err("expected `(` after function name"));
                        }
                        let arg = self.expr()?;
                        if !self.eat(b')') {
                            return Err(self.err("expected `)`"));
                        }
                        Ok(Expr::Call(func, Box::new(arg)))
                    }
                    None => Ok(Expr::Name {
                        name: name.to_string(),
                        slot: None,
                    }),
                }
            }
            _ => Err(self.err("expected a number, a name, a function or `(`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::parse_decimal;

    struct Series(Vec<Option<Num>>);
    impl Env for Series {
        fn value(&self, _r: Ref, t: usize) -> Result<Num, Undefined> {
            self.0[t].clone().ok_or(Undefined::Missing("x".into()))
        }
    }

    fn eval(src: &str, values: &[Option<&str>], t: usize) -> Result<Num, Undefined> {
        let mut e = Expr::parse(src).unwrap();
        e.resolve(&mut |_| Some(Ref::Item)).unwrap();
        let env = Series(
            values
                .iter()
                .map(|v| v.map(|s| parse_decimal(s).unwrap()))
                .collect(),
        );
        e.eval(&env, t)
    }

    #[test]
    fn growth_uses_the_absolute_base() {
        assert_eq!(
            eval("growth(x)", &[Some("-100"), Some("-50")], 1),
            Ok(parse_decimal("0.5").unwrap())
        );
        assert_eq!(
            eval("(x - prev(x)) / prev(x)", &[Some("-100"), Some("-50")], 1),
            Ok(parse_decimal("-0.5").unwrap())
        );
    }

    #[test]
    fn undefined_cases() {
        assert_eq!(
            eval("growth(x)", &[Some("1")], 0),
            Err(Undefined::FirstYear)
        );
        assert_eq!(
            eval("growth(x)", &[Some("0"), Some("3")], 1),
            Err(Undefined::ZeroDenominator)
        );
        assert!(matches!(
            eval("avg(x)", &[None, Some("3")], 1),
            Err(Undefined::Missing(_))
        ));
        assert_eq!(eval("opt(x) + 1", &[None], 0), Ok(int(1)));
    }

    #[test]
    fn precedence_and_round_trip() {
        let e = Expr::parse("(a + b) / c - d * 2").unwrap();
        assert_eq!(e.to_string(), "(a + b) / c - d * 2");
        assert_eq!(Expr::parse(" -a+b ").unwrap().to_string(), "-a + b");
        assert!(Expr::parse("a +").is_err());
        assert!(Expr::parse("prev a").is_err());
        assert!(Expr::parse("a b").is_err());
    }
}
