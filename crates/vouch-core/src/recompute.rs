//! The truth: every metric under every variant for every year, its undefined / not-meaningful
//! status, and the expected set of unusual-movement flags — all in exact arithmetic from the
//! user's own copy of the source. Checks compare artifacts against this; nothing here judges.

use crate::numbers::Num;
use crate::source::{SourceEnv, Statements};
use crate::spec::formula::{Env, Expr, Ref, Undefined};
use crate::spec::{RuleItems, Spec};
use num_traits::{Signed, Zero};
use std::cell::RefCell;

/// One recomputed cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Value(Num),
    Undefined(Undefined),
}

impl Cell {
    pub fn value(&self) -> Option<&Num> {
        match self {
            Cell::Value(v) => Some(v),
            Cell::Undefined(_) => None,
        }
    }
}

/// A metric's values: `cells[variant][t]` (variant 0 is canonical) and per-year status.
#[derive(Clone, Debug)]
pub struct MetricTruth {
    pub cells: Vec<Vec<Cell>>,
    /// Defined but not meaningful (e.g. a negative denominator).
    pub not_meaningful: Vec<bool>,
}

impl MetricTruth {
    pub fn canonical(&self, t: usize) -> &Cell {
        &self.cells[0][t]
    }
    /// Whether the metric has any defined value.
    pub fn any_defined(&self) -> bool {
        self.cells[0].iter().any(|c| c.value().is_some())
    }
}

/// What a flag or a movement row is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemRef {
    /// A source line item, by index in [`Statements::items`].
    Line(usize),
    /// A §2 metric, by index in the spec.
    Metric(usize),
}

/// Why a (year, item) pair may be flagged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// A contract rule, by index in `spec.movements.rules`.
    Rule(usize),
    /// The 15 % move rule applied to a metric under the given variant (accepted, not required).
    MetricGrowth { variant: usize },
}

/// A flag that fires: required ones form the expected set; the others are accepted extras.
#[derive(Clone, Debug, PartialEq)]
pub struct Flag {
    pub t: usize,
    pub year: i32,
    pub item: ItemRef,
    pub basis: Basis,
    /// The change value under the rule's formula, then its accepted alternatives.
    pub changes: Vec<Num>,
    pub required: bool,
}

#[derive(Clone, Debug)]
pub struct Truth {
    pub years: Vec<i32>,
    pub metrics: Vec<MetricTruth>,
    /// `measures[k][f][t]`: the memo measure `k` under its formula `f` in year `t`.
    pub measures: Vec<Vec<Vec<Cell>>>,
    pub flags: Vec<Flag>,
}

struct MetricEnv<'a> {
    spec: &'a Spec,
    source: SourceEnv<'a>,
    /// `memo[m][t]`: metric `m`'s canonical value in year `t` once evaluated, so a metric that
    /// other metrics and rules reference is computed once per year, not once per reference.
    memo: RefCell<Vec<Vec<Option<Cell>>>>,
}

impl<'a> MetricEnv<'a> {
    fn new(spec: &'a Spec, stmts: &'a Statements) -> MetricEnv<'a> {
        MetricEnv {
            spec,
            source: SourceEnv { stmts },
            memo: RefCell::new(vec![vec![None; stmts.rows]; spec.metrics.len()]),
        }
    }
}

impl Env for MetricEnv<'_> {
    fn value(&self, r: Ref, t: usize) -> Result<Num, Undefined> {
        match r {
            Ref::Column(_) => self.source.value(r, t),
            Ref::Metric(m) => {
                if let Some(Some(c)) = self.memo.borrow().get(m).and_then(|s| s.get(t)) {
                    return match c {
                        Cell::Value(v) => Ok(v.clone()),
                        Cell::Undefined(u) => Err(u.clone()),
                    };
                }
                let v = self.spec.metrics[m].variants[0].formula.eval(self, t);
                if let Some(slot) = self.memo.borrow_mut().get_mut(m).and_then(|s| s.get_mut(t)) {
                    *slot = Some(match &v {
                        Ok(x) => Cell::Value(x.clone()),
                        Err(u) => Cell::Undefined(u.clone()),
                    });
                }
                v
            }
            Ref::Item => Err(Undefined::Missing("x".into())),
        }
    }
}

/// Binds the placeholder `x` to a series.
struct ItemEnv<'a, 'b> {
    base: &'b MetricEnv<'a>,
    item: &'b [Cell],
}

impl Env for ItemEnv<'_, '_> {
    fn value(&self, r: Ref, t: usize) -> Result<Num, Undefined> {
        match r {
            Ref::Item => match &self.item[t] {
                Cell::Value(v) => Ok(v.clone()),
                Cell::Undefined(u) => Err(u.clone()),
            },
            other => self.base.value(other, t),
        }
    }
}

fn eval_series(e: &Expr, env: &dyn Env, n: usize) -> Vec<Cell> {
    (0..n)
        .map(|t| match e.eval(env, t) {
            Ok(v) => Cell::Value(v),
            Err(u) => Cell::Undefined(u),
        })
        .collect()
}

impl Truth {
    /// Recompute everything. `years` must be the source's valid, ordered years.
    pub fn compute(spec: &Spec, stmts: &Statements, years: &[i32]) -> Truth {
        let n = years.len().min(stmts.rows);
        let env = MetricEnv::new(spec, stmts);
        let metrics: Vec<MetricTruth> = spec
            .metrics
            .iter()
            .map(|m| MetricTruth {
                cells: m
                    .variants
                    .iter()
                    .map(|v| eval_series(&v.formula, &env, n))
                    .collect(),
                not_meaningful: (0..n)
                    .map(|t| {
                        m.not_meaningful_if_negative
                            .iter()
                            .any(|e| e.eval(&env, t).is_ok_and(|v| v.is_negative()))
                    })
                    .collect(),
            })
            .collect();

        let mut flags = Vec::new();
        let line_series: Vec<Vec<Cell>> = stmts
            .items
            .iter()
            .map(|it| {
                it.cells
                    .iter()
                    .take(n)
                    .map(|c| match c {
                        Some(v) => Cell::Value(v.value.clone()),
                        None => Cell::Undefined(Undefined::Missing(it.name.clone())),
                    })
                    .collect()
            })
            .collect();
        for (ri, rule) in spec.movements.rules.iter().enumerate() {
            let targets: Vec<(ItemRef, &[Cell], bool)> = match rule.items {
                RuleItems::LineItems => stmts
                    .items
                    .iter()
                    .enumerate()
                    .map(|(i, it)| {
                        (
                            ItemRef::Line(i),
                            line_series[i].as_slice(),
                            !it.is_derived_column(),
                        )
                    })
                    .collect(),
                RuleItems::Metric(m) => {
                    vec![(ItemRef::Metric(m), metrics[m].cells[0].as_slice(), true)]
                }
            };
            for (item, series, required) in targets {
                let ienv = ItemEnv {
                    base: &env,
                    item: series,
                };
                for (t, &year) in years.iter().enumerate().take(n).skip(1) {
                    let Ok(change) = rule.change.eval(&ienv, t) else {
                        continue;
                    };
                    let measure = if rule.absolute {
                        change.abs()
                    } else {
                        change.clone()
                    };
                    if measure < rule.threshold {
                        continue;
                    }
                    let mut changes = vec![change];
                    changes.extend(
                        rule.alternatives
                            .iter()
                            .filter_map(|a| a.eval(&ienv, t).ok()),
                    );
                    flags.push(Flag {
                        t,
                        year,
                        item,
                        basis: Basis::Rule(ri),
                        changes,
                        required,
                    });
                }
            }
        }
        // The 15 % rule on every metric, under every variant: accepted extras.
        for (m, truth) in metrics.iter().enumerate() {
            for (v, series) in truth.cells.iter().enumerate() {
                let ienv = ItemEnv {
                    base: &env,
                    item: series,
                };
                for (t, &year) in years.iter().enumerate().take(n).skip(1) {
                    let Ok(change) = spec.movements.extra_growth_change.eval(&ienv, t) else {
                        continue;
                    };
                    if change.abs() >= spec.movements.extra_growth_threshold && !change.is_zero() {
                        flags.push(Flag {
                            t,
                            year,
                            item: ItemRef::Metric(m),
                            basis: Basis::MetricGrowth { variant: v },
                            changes: vec![change],
                            required: false,
                        });
                    }
                }
            }
        }
        let measures = spec
            .measures
            .iter()
            .map(|m| {
                m.formulas
                    .iter()
                    .map(|f| eval_series(&f.formula, &env, n))
                    .collect()
            })
            .collect();
        Truth {
            measures,
            years: years[..n].to_vec(),
            metrics,
            flags,
        }
    }

    pub fn year_index(&self, year: i32) -> Option<usize> {
        self.years.iter().position(|&y| y == year)
    }

    /// Required flags: the expected set.
    pub fn expected(&self) -> impl Iterator<Item = &Flag> {
        self.flags.iter().filter(|f| f.required)
    }
}
