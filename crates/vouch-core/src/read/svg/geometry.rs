//! Geometry: affine transforms, lengths with units, boxes and path data (contract §4).
//!
//! Coordinates are `f64` pixels: a chart's geometry is approximate by nature (the contract's
//! tolerance is 0.5 px), unlike the exact arithmetic used for financial values.

/// An affine map `[a c e; b d f]` (SVG's `matrix(a b c d e f)`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub d: f64,
    pub e: f64,
    pub f: f64,
}

impl Transform {
    pub const IDENTITY: Transform = Transform {
        a: 1.0,
        b: 0.0,
        c: 0.0,
        d: 1.0,
        e: 0.0,
        f: 0.0,
    };

    pub fn translate(x: f64, y: f64) -> Transform {
        Transform {
            e: x,
            f: y,
            ..Transform::IDENTITY
        }
    }

    pub fn scale(sx: f64, sy: f64) -> Transform {
        Transform {
            a: sx,
            d: sy,
            ..Transform::IDENTITY
        }
    }

    /// `self` applied after `inner`: the map of a child whose own transform is `inner`.
    pub fn then(&self, inner: &Transform) -> Transform {
        Transform {
            a: self.a * inner.a + self.c * inner.b,
            b: self.b * inner.a + self.d * inner.b,
            c: self.a * inner.c + self.c * inner.d,
            d: self.b * inner.c + self.d * inner.d,
            e: self.a * inner.e + self.c * inner.f + self.e,
            f: self.b * inner.e + self.d * inner.f + self.f,
        }
    }

    pub fn apply(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (
            self.a * x + self.c * y + self.e,
            self.b * x + self.d * y + self.f,
        )
    }

    /// How much the map scales lengths (the square root of the area scale).
    pub fn length_scale(&self) -> f64 {
        (self.a * self.d - self.b * self.c).abs().sqrt()
    }

    /// The bounding box of a box's four mapped corners.
    pub fn apply_box(&self, r: &BBox) -> BBox {
        BBox::around(
            [(r.x0, r.y0), (r.x1, r.y0), (r.x0, r.y1), (r.x1, r.y1)].map(|p| self.apply(p)),
        )
    }
}

/// Parse a `transform` attribute. An invalid list is ignored as a whole (identity), as browsers do.
pub fn parse_transform(s: &str) -> Transform {
    parse_transform_list(s).unwrap_or(Transform::IDENTITY)
}

fn parse_transform_list(s: &str) -> Option<Transform> {
    let mut out = Transform::IDENTITY;
    let mut rest = s.trim();
    while !rest.is_empty() {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() {
            break;
        }
        let open = rest.find('(')?;
        let close = rest.find(')')?;
        if close < open {
            return None;
        }
        let name = rest[..open].trim();
        let args = numbers(&rest[open + 1..close])?;
        let t = match (name, args.as_slice()) {
            ("rotate", [deg, cx, cy]) => Transform::translate(*cx, *cy)
                .then(&rotation(*deg))
                .then(&Transform::translate(-cx, -cy)),
            ("matrix" | "translate" | "scale" | "rotate", _) => transform_function(name, &args)?,
            ("skewX", _) => transform_function("skewx", &args)?,
            ("skewY", _) => transform_function("skewy", &args)?,
            _ => return None,
        };
        out = out.then(&t);
        rest = &rest[close + 1..];
    }
    Some(out)
}

/// The CSS `transform` property (`scale(0.5) translate(10px, 4px) rotate(90deg)`): its functions
/// with px lengths and deg, rad, grad or turn angles. `None` for what vouch cannot place (a
/// percentage or font-relative length, a 3D function): a caller must not guess.
pub fn parse_css_transform(s: &str) -> Option<Transform> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("none") {
        return Some(Transform::IDENTITY);
    }
    let mut out = Transform::IDENTITY;
    let mut rest = s;
    while !rest.trim().is_empty() {
        rest = rest.trim_start();
        let open = rest.find('(')?;
        let close = rest.find(')')?;
        if close < open {
            return None;
        }
        let name = rest[..open].trim().to_ascii_lowercase();
        let raw: Vec<&str> = rest[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .collect();
        let kind = if name.starts_with("rotate") || name.starts_with("skew") {
            CssArg::Angle
        } else if name.starts_with("translate") {
            CssArg::Length
        } else {
            CssArg::Number
        };
        let args = raw
            .iter()
            .map(|a| css_number(a, kind))
            .collect::<Option<Vec<f64>>>()?;
        let t = transform_function(&name, &args)?;
        out = out.then(&t);
        rest = &rest[close + 1..];
    }
    Some(out)
}

/// One transform function by its lowercase CSS name (SVG's are the same with fewer forms).
fn transform_function(name: &str, args: &[f64]) -> Option<Transform> {
    let skew = |x: f64, y: f64| Transform {
        b: y.to_radians().tan(),
        c: x.to_radians().tan(),
        ..Transform::IDENTITY
    };
    Some(match (name, args) {
        ("matrix", [a, b, c, d, e, f]) => Transform {
            a: *a,
            b: *b,
            c: *c,
            d: *d,
            e: *e,
            f: *f,
        },
        ("translate" | "translatex", [x]) => Transform::translate(*x, 0.0),
        ("translate", [x, y]) => Transform::translate(*x, *y),
        ("translatey", [y]) => Transform::translate(0.0, *y),
        ("scale", [k]) => Transform::scale(*k, *k),
        ("scale", [x, y]) => Transform::scale(*x, *y),
        ("scalex", [x]) => Transform::scale(*x, 1.0),
        ("scaley", [y]) => Transform::scale(1.0, *y),
        ("rotate", [deg]) => rotation(*deg),
        ("skew" | "skewx", [x]) => skew(*x, 0.0),
        ("skew", [x, y]) => skew(*x, *y),
        ("skewy", [y]) => skew(0.0, *y),
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq)]
enum CssArg {
    Number,
    Length,
    Angle,
}

/// One CSS transform argument: a plain number (scale, matrix), a px length, or an angle in deg,
/// rad, grad or turn (returned in degrees). A unitless length or angle other than 0 is invalid
/// CSS, which a browser drops: `None`, as for units vouch cannot resolve.
fn css_number(a: &str, kind: CssArg) -> Option<f64> {
    let split = a
        .find(|c: char| c.is_ascii_alphabetic() || c == '%')
        .unwrap_or(a.len());
    let (num, unit) = a.split_at(split);
    let v: f64 = num.trim().parse().ok().filter(|v: &f64| v.is_finite())?;
    let unit = unit.to_ascii_lowercase();
    Some(match (unit.as_str(), kind) {
        ("", CssArg::Number) => v,
        ("", _) if v == 0.0 => 0.0,
        ("px", CssArg::Length) => v,
        ("deg", CssArg::Angle) => v,
        ("rad", CssArg::Angle) => v.to_degrees(),
        ("grad", CssArg::Angle) => v * 0.9,
        ("turn", CssArg::Angle) => v * 360.0,
        _ => return None,
    })
}

fn rotation(deg: f64) -> Transform {
    let (s, c) = deg.to_radians().sin_cos();
    Transform {
        a: c,
        b: s,
        c: -s,
        d: c,
        e: 0.0,
        f: 0.0,
    }
}

/// Numbers separated by commas and/or whitespace; `None` if any is not a number.
pub fn numbers(s: &str) -> Option<Vec<f64>> {
    let mut scan = Scanner::new(s);
    let mut out = Vec::new();
    loop {
        scan.skip_separators();
        if scan.done() {
            return Some(out);
        }
        out.push(scan.number()?);
    }
}

/// A length unit's size in px (CSS: 96 px per inch).
fn unit_px(unit: &str) -> Option<f64> {
    Some(match unit {
        "" | "px" => 1.0,
        "pt" => 4.0 / 3.0,
        "pc" => 16.0,
        "mm" => 96.0 / 25.4,
        "cm" => 96.0 / 2.54,
        "in" => 96.0,
        "q" => 96.0 / 101.6,
        _ => return None,
    })
}

/// A length as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Length {
    /// Absolute, converted to px (a bare number is user units, i.e. px).
    Px(f64),
    /// Relative to the inherited font size.
    Em(f64),
    Percent(f64),
}

/// Parse `12`, `12px`, `9pt`, `1.2em`, `80%`, `3mm`…
pub fn parse_length(s: &str) -> Option<Length> {
    let s = s.trim();
    let mut scan = Scanner::new(s);
    let v = scan.number()?;
    let unit = scan.rest().trim().to_ascii_lowercase();
    match unit.as_str() {
        "%" => Some(Length::Percent(v)),
        "em" => Some(Length::Em(v)),
        "rem" => None,
        "ex" => Some(Length::Em(v / 2.0)),
        u => unit_px(u).map(|k| Length::Px(v * k)),
    }
}

/// A coordinate attribute in user units (the first of a list; `%` and unknown units are 0).
pub fn coordinate(s: Option<&str>) -> f64 {
    let Some(s) = s else { return 0.0 };
    let first = s
        .split(|c: char| c == ',' || c.is_whitespace())
        .find(|t| !t.is_empty())
        .unwrap_or("");
    match parse_length(first) {
        Some(Length::Px(v)) => v,
        _ => 0.0,
    }
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BBox {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl BBox {
    pub fn around(points: impl IntoIterator<Item = (f64, f64)>) -> BBox {
        let mut b = BBox {
            x0: f64::INFINITY,
            y0: f64::INFINITY,
            x1: f64::NEG_INFINITY,
            y1: f64::NEG_INFINITY,
        };
        for (x, y) in points {
            b.x0 = b.x0.min(x);
            b.y0 = b.y0.min(y);
            b.x1 = b.x1.max(x);
            b.y1 = b.y1.max(y);
        }
        b
    }
    pub fn union(&self, o: &BBox) -> BBox {
        BBox {
            x0: self.x0.min(o.x0),
            y0: self.y0.min(o.y0),
            x1: self.x1.max(o.x1),
            y1: self.y1.max(o.y1),
        }
    }
    pub fn width(&self) -> f64 {
        self.x1 - self.x0
    }
    pub fn height(&self) -> f64 {
        self.y1 - self.y0
    }
    pub fn center(&self) -> (f64, f64) {
        ((self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0)
    }
    pub fn is_finite(&self) -> bool {
        [self.x0, self.y0, self.x1, self.y1]
            .iter()
            .all(|v| v.is_finite())
    }
    /// Whether `o` lies inside `self`, allowing `tol` on every side.
    pub fn contains(&self, o: &BBox, tol: f64) -> bool {
        o.x0 >= self.x0 - tol
            && o.y0 >= self.y0 - tol
            && o.x1 <= self.x1 + tol
            && o.y1 <= self.y1 + tol
    }
    pub fn contains_point(&self, (x, y): (f64, f64), tol: f64) -> bool {
        x >= self.x0 - tol && x <= self.x1 + tol && y >= self.y0 - tol && y <= self.y1 + tol
    }
    /// Whether the two boxes share more than `tol` in both directions.
    pub fn overlaps(&self, o: &BBox, tol: f64) -> bool {
        self.x1.min(o.x1) - self.x0.max(o.x0) > tol && self.y1.min(o.y1) - self.y0.max(o.y0) > tol
    }
}

impl std::fmt::Display for BBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "({}, {})–({}, {})",
            px(self.x0),
            px(self.y0),
            px(self.x1),
            px(self.y1)
        )
    }
}

/// A px value for messages: at most two decimals, no trailing zeros.
pub fn px(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// A path's vertices (the endpoints of its commands), by subpath, with whether each is closed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathData {
    pub subpaths: Vec<(Vec<(f64, f64)>, bool)>,
}

/// Parse path data (M/L/H/V/C/S/Q/T/A/Z, absolute and relative). Like a browser, keep what was
/// read before the first error. Stops after `max_vertices`.
pub fn parse_path(d: &str, max_vertices: usize) -> PathData {
    let mut scan = Scanner::new(d);
    let mut out = PathData::default();
    let mut current: Vec<(f64, f64)> = Vec::new();
    let (mut x, mut y) = (0.0, 0.0);
    let (mut sx, mut sy) = (0.0, 0.0);
    let mut cmd: Option<char> = None;
    let mut count = 0usize;
    loop {
        scan.skip_separators();
        if scan.done() || count >= max_vertices {
            break;
        }
        let c = match scan.peek() {
            Some(c) if c.is_ascii_alphabetic() => {
                scan.bump();
                c
            }
            // Repeated arguments: after M/m, further pairs are L/l.
            Some(_) => match cmd {
                Some('M') => 'L',
                Some('m') => 'l',
                Some(c) if !matches!(c, 'Z' | 'z') => c,
                _ => break,
            },
            None => break,
        };
        let rel = c.is_ascii_lowercase();
        let (ox, oy) = if rel { (x, y) } else { (0.0, 0.0) };
        let arity = match c.to_ascii_uppercase() {
            'M' | 'L' | 'T' => 2,
            'H' | 'V' => 1,
            'C' => 6,
            'S' | 'Q' => 4,
            'A' => 7,
            'Z' => 0,
            _ => break,
        };
        if arity == 0 {
            if !current.is_empty() {
                out.subpaths.push((std::mem::take(&mut current), true));
            }
            x = sx;
            y = sy;
            cmd = Some(c);
            continue;
        }
        let mut args = [0.0; 7];
        let mut ok = true;
        for (k, slot) in args.iter_mut().take(arity).enumerate() {
            scan.skip_separators();
            let is_flag = c.eq_ignore_ascii_case(&'a') && (k == 3 || k == 4);
            match if is_flag { scan.flag() } else { scan.number() } {
                Some(v) => *slot = v,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok {
            break;
        }
        let (nx, ny) = match c.to_ascii_uppercase() {
            'H' => (ox + args[0], y),
            'V' => (x, oy + args[0]),
            _ => (ox + args[arity - 2], oy + args[arity - 1]),
        };
        if c.eq_ignore_ascii_case(&'m') {
            if !current.is_empty() {
                out.subpaths.push((std::mem::take(&mut current), false));
            }
            sx = nx;
            sy = ny;
        }
        x = nx;
        y = ny;
        current.push((x, y));
        count += 1;
        cmd = Some(c);
    }
    if !current.is_empty() {
        out.subpaths.push((current, false));
    }
    out
}

/// A tiny scanner for SVG number grammar (`1.5.5` is 1.5 then .5; `1-2` is 1 then -2).
struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn new(s: &'a str) -> Scanner<'a> {
        Scanner {
            s: s.as_bytes(),
            i: 0,
        }
    }
    fn done(&self) -> bool {
        self.i >= self.s.len()
    }
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).map(|&b| b as char)
    }
    fn bump(&mut self) {
        self.i += 1;
    }
    fn rest(&self) -> &'a str {
        std::str::from_utf8(&self.s[self.i.min(self.s.len())..]).unwrap_or("")
    }
    fn skip_separators(&mut self) {
        while matches!(self.peek(), Some(c) if c.is_ascii_whitespace() || c == ',') {
            self.i += 1;
        }
    }
    fn flag(&mut self) -> Option<f64> {
        match self.peek()? {
            '0' => {
                self.i += 1;
                Some(0.0)
            }
            '1' => {
                self.i += 1;
                Some(1.0)
            }
            _ => None,
        }
    }
    fn number(&mut self) -> Option<f64> {
        let start = self.i;
        if matches!(self.peek(), Some('+' | '-')) {
            self.i += 1;
        }
        let digits = |sc: &mut Scanner| {
            let from = sc.i;
            while matches!(sc.peek(), Some(c) if c.is_ascii_digit()) {
                sc.i += 1;
            }
            sc.i > from
        };
        let int = digits(self);
        let mut frac = false;
        if self.peek() == Some('.') {
            self.i += 1;
            frac = digits(self);
        }
        if !int && !frac {
            self.i = start;
            return None;
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let save = self.i;
            self.i += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.i += 1;
            }
            if !digits(self) {
                self.i = save;
            }
        }
        let v: f64 = std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()?;
        v.is_finite().then_some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9
    }

    #[test]
    fn composes_nested_transforms_outer_first() {
        let outer = parse_transform("translate(10,20)");
        let inner = parse_transform("scale(2)");
        assert!(close(outer.then(&inner).apply((1.0, 1.0)), (12.0, 22.0)));
        assert!(close(
            parse_transform("translate(10 20) scale(2)").apply((1.0, 1.0)),
            (12.0, 22.0)
        ));
    }

    #[test]
    fn rotates_about_a_centre_and_reads_matrices() {
        assert!(close(
            parse_transform("rotate(90 10 10)").apply((20.0, 10.0)),
            (10.0, 20.0)
        ));
        assert!(close(
            parse_transform("matrix(1 0 0 1 5 6)").apply((0.0, 0.0)),
            (5.0, 6.0)
        ));
        assert!(close(
            parse_transform("rotate(-90)").apply((1.0, 0.0)),
            (0.0, -1.0)
        ));
    }

    #[test]
    fn ignores_an_invalid_transform_list() {
        assert_eq!(
            parse_transform("translate(1,2) bogus(3)"),
            Transform::IDENTITY
        );
    }

    #[test]
    fn converts_units_to_px() {
        assert_eq!(parse_length("9pt"), Some(Length::Px(12.0)));
        assert_eq!(parse_length("1in"), Some(Length::Px(96.0)));
        assert_eq!(parse_length("2.54cm"), Some(Length::Px(96.0)));
        assert_eq!(parse_length("12"), Some(Length::Px(12.0)));
        assert_eq!(parse_length("1.5em"), Some(Length::Em(1.5)));
        assert_eq!(parse_length("80%"), Some(Length::Percent(80.0)));
        assert_eq!(parse_length("big"), None);
    }

    #[test]
    fn path_vertices_are_command_endpoints() {
        let p = parse_path(
            "M10 10 L20 10 h5 v5 C0 0 0 0 30 30 s1 1 2 2 Q0 0 40 40 t1 1 A5 5 0 0 1 50 50 z",
            100,
        );
        let v = &p.subpaths[0].0;
        assert_eq!(
            v,
            &vec![
                (10.0, 10.0),
                (20.0, 10.0),
                (25.0, 10.0),
                (25.0, 15.0),
                (30.0, 30.0),
                (32.0, 32.0),
                (40.0, 40.0),
                (41.0, 41.0),
                (50.0, 50.0)
            ]
        );
        assert!(p.subpaths[0].1);
    }

    #[test]
    fn relative_moves_repeat_as_lines_and_compact_numbers_split() {
        let p = parse_path("m1 1 2 2-1.5.5a1 1 0 00 3 3", 100);
        assert_eq!(
            p.subpaths[0].0,
            vec![(1.0, 1.0), (3.0, 3.0), (1.5, 3.5), (4.5, 6.5)]
        );
    }

    proptest! {
        #[test]
        fn path_parsing_never_panics(d in "[MmLlHhVvCcSsQqTtAaZz0-9 ,.eE+-]{0,80}") {
            let _ = parse_path(&d, 1000);
        }

        #[test]
        fn translate_then_inverse_is_identity(x in -1e4f64..1e4, y in -1e4f64..1e4) {
            let t = Transform::translate(x, y).then(&Transform::translate(-x, -y));
            prop_assert!(close(t.apply((3.0, 4.0)), (3.0, 4.0)));
        }
    }
}
