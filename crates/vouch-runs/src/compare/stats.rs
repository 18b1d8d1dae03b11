//! The statistics behind `vouch compare`, as pure functions over counts: Wilson score intervals,
//! Fisher's exact test and the pooled two-proportion z test for two independent samples,
//! McNemar's test (exact binomial and chi-square with continuity correction) for paired samples,
//! Holm–Bonferroni adjusted p-values, and pass^k over repeated trials.
//!
//! Exact tests work in log space over a table of ln(n!) (see [`LnFactorial`]) so that counts in
//! the tens of thousands neither overflow nor lose precision; each exact test is O(n). The unit
//! tests pin every function to reference values computed with SciPy 1.17 / statsmodels 0.15
//! (and, where one exists, to the textbook example the value comes from).

/// The two-sided 95 % normal quantile, Φ⁻¹(0.975).
pub const Z_95: f64 = 1.959_963_984_540_054;

/// Relative tolerance when comparing hypergeometric/binomial probabilities with the observed
/// one, as R's `fisher.test` and SciPy do: tables whose probability equals the observed one up
/// to floating-point noise count as "as extreme".
const RELATIVE_TOLERANCE: f64 = 1e-7;

/// Terms of an exact test's sum smaller than e^-NEGLIGIBLE times the observed term are left
/// out: even 10⁵ of them change the p-value by a relative 3e-15.
const NEGLIGIBLE: f64 = 45.0;

/// A closed interval of proportions within [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// The Wilson score interval for `successes` out of `n` at normal quantile `z` (use [`Z_95`] for
/// 95 %). Unlike the Wald interval it stays inside [0, 1] and keeps its coverage near 0 and 1,
/// which is where check failure rates live. `n = 0` gives the uninformative [0, 1].
pub fn wilson(successes: u64, n: u64, z: f64) -> Interval {
    if n == 0 {
        return Interval {
            low: 0.0,
            high: 1.0,
        };
    }
    let n_f = n as f64;
    let p = successes as f64 / n_f;
    let z2 = z * z;
    let denominator = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    Interval {
        low: if successes == 0 {
            0.0
        } else {
            (centre - half).max(0.0)
        },
        high: if successes >= n {
            1.0
        } else {
            (centre + half).min(1.0)
        },
    }
}

/// The 95 % Wilson score interval.
pub fn wilson95(successes: u64, n: u64) -> Interval {
    wilson(successes, n, Z_95)
}

/// ln(k!) for k = 0..=max, computed once with ln Γ(k + 1) (accurate to a few ulps, unlike a
/// running sum of ln k whose rounding error grows with k).
#[derive(Clone, Debug)]
pub struct LnFactorial {
    table: Vec<f64>,
}

impl LnFactorial {
    pub fn new(max: u64) -> LnFactorial {
        let table = (0..=max)
            .map(|k| libm::lgamma(k as f64 + 1.0))
            .collect::<Vec<f64>>();
        LnFactorial { table }
    }

    /// The largest k the table covers.
    pub fn max(&self) -> u64 {
        self.table.len() as u64 - 1
    }

    /// ln(k!). Panics when `k` exceeds [`LnFactorial::max`] (a caller sized the table wrongly).
    pub fn ln_factorial(&self, k: u64) -> f64 {
        self.table[k as usize]
    }

    /// ln C(n, k) for k ≤ n.
    pub fn ln_choose(&self, n: u64, k: u64) -> f64 {
        self.ln_factorial(n) - self.ln_factorial(k) - self.ln_factorial(n - k)
    }
}

/// A 2×2 table of counts `[[a, b], [c, d]]`: rows are the two samples, columns the outcome
/// (e.g. failed / did not fail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table2x2 {
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub d: u64,
}

impl Table2x2 {
    pub fn total(&self) -> u64 {
        self.a + self.b + self.c + self.d
    }
}

/// Two-sided p-value of Fisher's exact test on a 2×2 table: the probability, under the
/// hypergeometric distribution with the table's margins fixed, of every table at most as
/// probable as the observed one (the same definition as R's `fisher.test` and SciPy's
/// `fisher_exact`). `ln_fact` must cover the table's total.
pub fn fisher_exact(table: Table2x2, ln_fact: &LnFactorial) -> f64 {
    let Table2x2 { a, b, c, d } = table;
    let n = a + b + c + d;
    let row1 = a + b;
    let col1 = a + c;
    let row2 = c + d;
    // ln P(X = x) = ln C(row1, x) + ln C(row2, col1 - x) - ln C(n, col1)
    let constant = ln_fact.ln_factorial(row1)
        + ln_fact.ln_factorial(row2)
        + ln_fact.ln_factorial(col1)
        + ln_fact.ln_factorial(n - col1)
        - ln_fact.ln_factorial(n);
    let ln_p = |x: u64| {
        constant
            - ln_fact.ln_factorial(x)
            - ln_fact.ln_factorial(row1 - x)
            - ln_fact.ln_factorial(col1 - x)
            - ln_fact.ln_factorial(row2 + x - col1)
    };
    let low = col1.saturating_sub(row2);
    let high = col1.min(row1);
    let observed = ln_p(a);
    let threshold = observed + RELATIVE_TOLERANCE.ln_1p();
    // The distribution is unimodal: walk out from the mode both ways and stop where terms
    // become negligible next to the observed one (each below e^-NEGLIGIBLE of it). This keeps
    // the test O(√n) in practice; the terms left out change p by a relative 1e-14 at most.
    let cutoff = observed - NEGLIGIBLE;
    let mut mode = ((row1 + 1) as f64 * (col1 + 1) as f64 / (n + 2) as f64) as u64;
    mode = mode.clamp(low, high);
    while mode > low && ln_p(mode - 1) > ln_p(mode) {
        mode -= 1;
    }
    while mode < high && ln_p(mode + 1) > ln_p(mode) {
        mode += 1;
    }
    // Normalise by the sum over the support, as R does: the rounding error of the constant
    // cancels, and a table at the mode gets p = 1 exactly.
    let (mut as_extreme, mut all) = (0.0f64, 0.0f64);
    let mut add = |l: f64| {
        let w = l.exp();
        all += w;
        if l <= threshold {
            as_extreme += w;
        }
    };
    for x in (low..=mode).rev() {
        let l = ln_p(x);
        if l < cutoff {
            break;
        }
        add(l);
    }
    for x in mode + 1..=high {
        let l = ln_p(x);
        if l < cutoff {
            break;
        }
        add(l);
    }
    let p = as_extreme / all;
    p.min(1.0)
}

/// Two-sided p-value of the pooled two-proportion z test of `x1 / n1` against `x2 / n2`, with
/// the z statistic. An asymptotic approximation to [`fisher_exact`], good when every expected
/// cell count is large. Degenerate inputs (an empty side, or a pooled rate of 0 or 1) give
/// z = 0 and p = 1: there is no evidence of a difference.
pub fn two_proportion_z(x1: u64, n1: u64, x2: u64, n2: u64) -> (f64, f64) {
    if n1 == 0 || n2 == 0 {
        return (0.0, 1.0);
    }
    let (n1f, n2f) = (n1 as f64, n2 as f64);
    let pooled = (x1 + x2) as f64 / (n1f + n2f);
    let se = (pooled * (1.0 - pooled) * (1.0 / n1f + 1.0 / n2f)).sqrt();
    if se == 0.0 {
        return (0.0, 1.0);
    }
    let z = (x1 as f64 / n1f - x2 as f64 / n2f) / se;
    (z, two_sided_normal_p(z))
}

/// P(|Z| ≥ |z|) for a standard normal Z.
pub fn two_sided_normal_p(z: f64) -> f64 {
    libm::erfc(z.abs() / std::f64::consts::SQRT_2).min(1.0)
}

/// Two-sided p-value of the exact McNemar test on the discordant pairs of a paired design:
/// `b` pairs changed one way, `c` the other way; under the null each discordant pair goes
/// either way with probability ½, so min(b, c) is Binomial(b + c, ½) and
/// p = min(1, 2 · P(X ≤ min(b, c))). `ln_fact` must cover b + c.
pub fn mcnemar_exact(b: u64, c: u64, ln_fact: &LnFactorial) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    // Terms shrink away from min(b, c) ≤ n/2 towards 0; stop once they are negligible.
    let first = ln_fact.ln_choose(n, b.min(c));
    let tail: f64 = (0..=b.min(c))
        .rev()
        .map(|i| ln_fact.ln_choose(n, i))
        .take_while(|&l| l >= first - NEGLIGIBLE)
        .map(|l| (l + ln_half_n).exp())
        .sum();
    (2.0 * tail).min(1.0)
}

/// McNemar's chi-square test with Edwards' continuity correction on the discordant counts:
/// statistic max(|b − c| − 1, 0)² / (b + c), one degree of freedom. Returns (statistic, p).
/// The asymptotic companion of [`mcnemar_exact`]. Unlike R and statsmodels the corrected
/// difference is clamped at 0, so b = c (no evidence either way) gives p = 1, not < 1; no
/// discordant pairs gives (0, 1).
pub fn mcnemar_chi2(b: u64, c: u64) -> (f64, f64) {
    let n = b + c;
    if n == 0 {
        return (0.0, 1.0);
    }
    let diff = (b.abs_diff(c) as f64 - 1.0).max(0.0);
    let statistic = diff * diff / n as f64;
    // For one degree of freedom, P(χ² ≥ s) = P(|Z| ≥ √s).
    (statistic, two_sided_normal_p(statistic.sqrt()))
}

/// Holm–Bonferroni step-down adjusted p-values, in the input's order: sort ascending, multiply
/// the i-th smallest (0-based) by (m − i), carry the running maximum so the adjusted values are
/// monotone in the raw ones, cap at 1. Rejecting where the adjusted p ≤ α controls the
/// family-wise error rate at α under any dependence between the tests.
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p_values[i].total_cmp(&p_values[j]));
    let mut adjusted = vec![0.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p_values[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// pass^k as defined by τ-bench: for each input with n trials of which c passed, the chance
/// that k trials drawn without replacement all passed, C(c, k) / C(n, k); averaged over
/// inputs. `inputs` holds (n, c) per input. None when some input has fewer than k trials or
/// there are no inputs or k = 0.
pub fn pass_hat_k(inputs: &[(u64, u64)], k: u64) -> Option<f64> {
    if inputs.is_empty() || k == 0 || inputs.iter().any(|&(n, _)| n < k) {
        return None;
    }
    let total: f64 = inputs
        .iter()
        .map(|&(n, c)| {
            // C(c, k) / C(n, k) = Π_{i<k} (c − i) / (n − i); zero once c < k.
            (0..k)
                .map(|i| c.saturating_sub(i) as f64 / (n - i) as f64)
                .product::<f64>()
        })
        .sum();
    Some(total / inputs.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, relative: f64) {
        let scale = expected.abs().max(1e-300);
        assert!(
            (actual - expected).abs() / scale <= relative,
            "actual {actual:e}, expected {expected:e}"
        );
    }

    fn fisher(a: u64, b: u64, c: u64, d: u64) -> f64 {
        let t = Table2x2 { a, b, c, d };
        fisher_exact(t, &LnFactorial::new(t.total()))
    }

    fn mcnemar(b: u64, c: u64) -> f64 {
        mcnemar_exact(b, c, &LnFactorial::new(b + c))
    }

    // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat. Med.
    // 17:857–872, Table I, method 3 (Wilson score), and statsmodels 0.15
    // `proportion_confint(c, n, alpha=0.05, method="wilson")` to full precision.
    #[test]
    fn wilson_95_matches_newcombe_table_and_statsmodels() {
        let cases = [
            (81, 263, 0.2552885198782742, 0.36620957698280004),
            (15, 148, 0.06238639953073628, 0.16048724172330803),
            (0, 20, 0.0, 0.1611251580528194),
            (1, 29, 0.006113214292762667, 0.17175521879320294),
            (0, 10, 0.0, 0.27753279986288926),
            (10, 10, 0.7224672001371106, 1.0),
            (180, 200, 0.8505941875672826, 0.9343295513309041),
            (9000, 10000, 0.8939656314740893, 0.9057271698293695),
            (1, 1, 0.2065493143772374, 1.0),
        ];
        for (c, n, low, high) in cases {
            let ci = wilson95(c, n);
            close(ci.low, low, 1e-12);
            close(ci.high, high, 1e-12);
        }
        // Newcombe's printed four-decimal values.
        let ci = wilson95(81, 263);
        assert_eq!(
            (format!("{:.4}", ci.low), format!("{:.4}", ci.high)),
            ("0.2553".into(), "0.3662".into())
        );
    }

    // statsmodels `proportion_confint(..., alpha=0.10 / 0.01, method="wilson")`; quantiles
    // from scipy `norm.ppf(0.95)` and `norm.ppf(0.995)`.
    #[test]
    fn wilson_takes_any_quantile() {
        let z90 = 1.6448536269514722;
        let z99 = 2.5758293035489004;
        let ci = wilson(81, 263, z90);
        close(ci.low, 0.2633136171884814, 1e-12);
        close(ci.high, 0.35656634960848815, 1e-12);
        let ci = wilson(3, 7, z90);
        close(ci.low, 0.186443190363956, 1e-12);
        close(ci.high, 0.7105229089864071, 1e-12);
        let ci = wilson(81, 263, z99);
        close(ci.low, 0.24013690268760773, 1e-12);
        close(ci.high, 0.38528250231822986, 1e-12);
    }

    #[test]
    fn wilson_of_nothing_is_the_whole_unit_interval() {
        assert_eq!(
            wilson95(0, 0),
            Interval {
                low: 0.0,
                high: 1.0
            }
        );
    }

    #[test]
    fn ln_factorial_is_exact_for_small_and_accurate_for_large() {
        let t = LnFactorial::new(20_000);
        assert_eq!(t.ln_factorial(0), 0.0);
        assert_eq!(t.ln_factorial(1), 0.0);
        close(t.ln_factorial(10), (3_628_800f64).ln(), 1e-15);
        // Stirling's series, truncated after the 1/(360 n³) term, is exact to ~1e-20 here.
        let n = 20_000f64;
        let stirling =
            n * n.ln() - n + 0.5 * (2.0 * std::f64::consts::PI * n).ln() + 1.0 / (12.0 * n)
                - 1.0 / (360.0 * n.powi(3));
        close(t.ln_factorial(20_000), stirling, 1e-14);
        close(t.ln_choose(10, 3), 120f64.ln(), 1e-14);
    }

    // Fisher's lady tasting tea (Fisher 1935, The Design of Experiments, ch. II): 3 of 4
    // cups right each way gives p = 34/70 = 0.4857. The rest: scipy.stats.fisher_exact 1.17.
    #[test]
    fn fisher_matches_the_tea_tasting_example_and_scipy() {
        close(fisher(3, 1, 1, 3), 0.48571428571428565, 1e-12);
        let cases = [
            ((1, 9, 11, 3), 0.0027594561852200836),
            ((0, 5, 5, 0), 0.007936507936507938),
            ((10, 10, 10, 10), 1.0),
            ((180, 20, 150, 50), 0.00011278172795779362),
            ((9000, 1000, 8900, 1100), 0.022378874800480137),
            ((2, 7, 8, 2), 0.02301413756522116),
            ((0, 0, 3, 4), 1.0),
            ((5000, 5000, 5100, 4900), 0.16146929150845823),
            ((1, 0, 0, 0), 1.0),
            ((7, 12, 0, 15), 0.010562649824820209),
        ];
        for ((a, b, c, d), expected) in cases {
            close(fisher(a, b, c, d), expected, 1e-9);
        }
    }

    #[test]
    fn fisher_is_symmetric_in_rows_and_columns() {
        let p = fisher(7, 12, 0, 15);
        close(fisher(0, 15, 7, 12), p, 1e-12);
        close(fisher(7, 0, 12, 15), p, 1e-12);
        close(fisher(12, 7, 15, 0), p, 1e-12);
    }

    #[test]
    fn fisher_counts_tables_tied_with_the_observed_one() {
        // [[1,1],[1,1]] is the mode and ties nothing smaller away: every table counts, p = 1.
        close(fisher(1, 1, 1, 1), 1.0, 1e-12);
        // [[2,0],[0,2]] and [[0,2],[2,0]] each have probability 1/6: p = 1/3 exactly.
        close(fisher(2, 0, 0, 2), 1.0 / 3.0, 1e-12);
    }

    // statsmodels `proportions_ztest([x1, x2], [n1, n2])` (pooled variance).
    #[test]
    fn two_proportion_z_matches_statsmodels() {
        let cases = [
            (
                (180, 200, 150, 200),
                3.947710169758614,
                7.890224290256148e-05,
            ),
            (
                (9000, 10000, 8900, 10000),
                2.306634773817014,
                0.021075189273797625,
            ),
            ((50, 100, 50, 100), 0.0, 1.0),
            (
                (5000, 10000, 5100, 10000),
                -1.4142842783549578,
                0.15727845115653802,
            ),
        ];
        for ((x1, n1, x2, n2), z, p) in cases {
            let (zz, pp) = two_proportion_z(x1, n1, x2, n2);
            assert!((zz - z).abs() < 1e-12, "{zz} vs {z}");
            close(pp, p, 1e-10);
        }
        assert_eq!(two_proportion_z(0, 10, 0, 10), (0.0, 1.0));
        assert_eq!(two_proportion_z(3, 0, 0, 10), (0.0, 1.0));
    }

    #[test]
    fn two_proportion_z_agrees_with_fisher_when_counts_are_large() {
        let (_, z) = two_proportion_z(9000, 10000, 8900, 10000);
        let f = fisher(9000, 1000, 8900, 1100);
        assert!((z - f).abs() / f < 0.07, "z {z} fisher {f}");
    }

    // statsmodels `mcnemar(table, exact=True)` and `mcnemar(table, exact=False,
    // correction=True)` on tables whose off-diagonal cells are (b, c).
    #[test]
    fn mcnemar_matches_statsmodels() {
        let cases = [
            (
                (10, 2),
                0.03857421875,
                4.083333333333333,
                0.04330814281079206,
            ),
            // R and statsmodels give (|0| − 1)² / 6 = 1/6 and p = 0.683 here; we clamp the
            // corrected difference at 0 so that equal discordant counts give p = 1.
            ((3, 3), 1.0, 0.0, 1.0),
            ((0, 5), 0.0625, 3.2, 0.07363827012030258),
            ((25, 15), 0.1538599441628321, 2.025, 0.15472892348537437),
            (
                (150, 120),
                0.07738939898021849,
                3.1148148148148147,
                0.07758329748513149,
            ),
            ((1, 0), 1.0, 0.0, 1.0),
            ((59, 6), 4.964650327128616e-12, 41.6, 1.1199327149542469e-10),
        ];
        for ((b, c), exact, statistic, asymptotic) in cases {
            close(mcnemar(b, c), exact, 1e-9);
            let (s, p) = mcnemar_chi2(b, c);
            assert!((s - statistic).abs() < 1e-12, "{s} vs {statistic}");
            close(p, asymptotic, 1e-9);
        }
        assert_eq!(mcnemar(0, 0), 1.0);
        assert_eq!(mcnemar_chi2(0, 0), (0.0, 1.0));
    }

    // statsmodels `multipletests(p, method="holm")[1]`.
    #[test]
    fn holm_matches_statsmodels_and_is_monotone() {
        let cases: [(&[f64], &[f64]); 3] = [
            (&[0.01, 0.04, 0.03, 0.005], &[0.03, 0.06, 0.06, 0.02]),
            (&[0.5, 0.01, 0.02], &[0.5, 0.03, 0.04]),
            (&[0.04, 0.04, 0.04], &[0.12, 0.12, 0.12]),
        ];
        for (raw, expected) in cases {
            let adjusted = holm(raw);
            for (a, e) in adjusted.iter().zip(expected) {
                close(*a, *e, 1e-12);
            }
        }
        assert!(holm(&[]).is_empty());
        assert_eq!(holm(&[0.9, 0.6]), vec![1.0, 1.0]);
    }

    // Reference: numpy mean of math.comb(c, k) / math.comb(n, k) over the four inputs.
    #[test]
    fn pass_hat_k_averages_c_choose_k_over_n_choose_k() {
        let inputs = [(8, 8), (8, 6), (8, 2), (8, 0)];
        let expected = [
            0.5,
            0.39285714285714285,
            0.3392857142857143,
            0.30357142857142855,
            0.2767857142857143,
            0.25892857142857145,
            0.25,
            0.25,
        ];
        for (k, e) in (1..=8).zip(expected) {
            close(pass_hat_k(&inputs, k).unwrap(), e, 1e-12);
        }
        assert_eq!(pass_hat_k(&inputs, 9), None);
        assert_eq!(pass_hat_k(&[], 1), None);
        assert_eq!(pass_hat_k(&inputs, 0), None);
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn wilson_contains_the_estimate(n in 1u64..5000, frac in 0.0f64..=1.0) {
                let c = (n as f64 * frac).round() as u64;
                let ci = wilson95(c, n);
                let p = c as f64 / n as f64;
                prop_assert!(0.0 <= ci.low && ci.low <= p + 1e-12);
                prop_assert!(p - 1e-12 <= ci.high && ci.high <= 1.0);
            }

            #[test]
            fn fisher_p_is_a_probability(a in 0u64..60, b in 0u64..60, c in 0u64..60, d in 0u64..60) {
                let t = Table2x2 { a, b, c, d };
                let p = fisher_exact(t, &LnFactorial::new(t.total()));
                prop_assert!(p > 0.0 && p <= 1.0, "{p}");
            }

            #[test]
            fn fisher_walk_from_the_mode_equals_the_full_sum(
                a in 0u64..400, b in 0u64..400, c in 0u64..400, d in 0u64..400
            ) {
                let t = Table2x2 { a, b, c, d };
                let ln_fact = LnFactorial::new(t.total());
                let (row1, row2, col1) = (a + b, c + d, a + c);
                let ln_p = |x: u64| {
                    ln_fact.ln_choose(row1, x) + ln_fact.ln_choose(row2, col1 - x)
                        - ln_fact.ln_choose(t.total(), col1)
                };
                let observed = ln_p(a);
                let naive: f64 = (col1.saturating_sub(row2)..=col1.min(row1))
                    .map(ln_p)
                    .filter(|&l| l <= observed + 1e-7f64.ln_1p())
                    .map(f64::exp)
                    .sum();
                let p = fisher_exact(t, &ln_fact);
                prop_assert!((p - naive.min(1.0)).abs() <= 1e-9 * naive.max(1e-300), "{p} vs {naive}");
            }

            #[test]
            fn holm_never_lowers_a_p_value(ps in proptest::collection::vec(0.0f64..=1.0, 0..20)) {
                let adjusted = holm(&ps);
                for (a, p) in adjusted.iter().zip(&ps) {
                    prop_assert!(a >= p && *a <= 1.0);
                }
            }
        }
    }
}
