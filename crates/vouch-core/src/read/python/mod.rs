//! Reading `analyze_financials.py`: parse it as Python 3.12 and collect, with their lines, the
//! facts the script checks judge — every import (statements and `__import__` /
//! `importlib.import_module` calls), every reference to an attribute of `os`, and every string
//! literal. This module never judges: it does not know which modules are allowed.
//!
//! The parser is ruff's own (`ruff_python_parser`, the crate ruff publishes on crates.io), so
//! comments and strings are tokens, never code. Version `=0.0.10` is pinned because it is the
//! newest release whose `rust-version` (1.95) builds on our toolchain; later releases need 1.96+.
//! It is preferred to `rustpython-parser` (0.4, unmaintained since 2024, no 3.12 grammar flags):
//! ruff's parser is maintained, recovers from errors, and reports syntax newer than a target
//! version (3.13's and 3.14's) separately, which is how "parses as Python 3.12" is checked.
//!
//! Limits: the analysis is by name, not by scope or data flow. A name bound to `os` anywhere
//! (`import os as o`, `o = os`, `o = __import__("os")`) counts as `os` everywhere. `posix` and
//! `nt`, the modules `os` re-exports its process functions from, count as `os` too. Nesting is
//! bounded before parsing (see [`nesting_problem`]) so that a hostile script cannot exhaust the
//! stack or memory.

pub mod bound;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{
    Expr, ExprAttribute, ExprCall, FStringPart, InterpolatedStringElement, PythonVersion, Stmt,
};
use ruff_python_parser::lexer::lex;
use ruff_python_parser::{parse_unchecked, Mode, ParseOptions};
use ruff_text_size::{Ranged, TextRange, TextSize};
use std::cell::Cell;
use std::collections::HashSet;

/// CPython 3.12 refuses deeper parenthesis nesting ("too many nested parentheses").
const MAX_BRACKET_DEPTH: usize = 200;
/// CPython 3.12 refuses deeper indentation ("too many levels of indentation").
const MAX_INDENT_DEPTH: usize = 100;
/// CPython 3.12 fails to compile expressions nested this deep (RecursionError or "Parser stack
/// overflowed"); measured with 3.12.1, which already fails somewhere between 1000 and 3000.
const MAX_EXPRESSION_DEPTH: usize = 3000;
/// The stack the parse and walk run on when the caller's has too little room; the nesting bounds
/// keep the recursion well inside it.
const STACK_BYTES: usize = 64 << 20;
/// Stack the parse and walk need besides their recursion (ruff's parser grows its own stack).
pub const STACK_BASE_BYTES: usize = 256 << 10;
/// Stack the walk and the AST's drop need per unit of the nesting bound (at most one AST level per
/// unit; debug builds measured about 1.7 KiB per level, so this is more than twice that; see
/// `deep_nesting_fits_the_stack_estimate`).
pub const STACK_BYTES_PER_LEVEL: usize = 4 << 10;
// rayon's workers (where `verify` runs the script family) have room for the deepest nesting.
const _: () = assert!(
    crate::verify::WORKER_STACK_BYTES
        >= STACK_BASE_BYTES + (MAX_EXPRESSION_DEPTH + MAX_INDENT_DEPTH) * STACK_BYTES_PER_LEVEL
);
/// Offending text is shown up to this many characters.
const SHOWN_CHARS: usize = 120;

/// Modules whose attributes are `os`'s process functions.
const OS_MODULES: [&str; 3] = ["os", "posix", "nt"];

/// A place in the script: its 1-based line and the offending text (first line, shortened).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub line: usize,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxProblem {
    pub at: Span,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportForm {
    /// `import a.b [as c]`
    Import,
    /// `from a.b import c`, `from . import c`
    From,
    /// `__import__("a")`, `importlib.__import__("a")`, `builtins.__import__("a")`
    DunderImport,
    /// `importlib.import_module("a")`
    ImportModule,
}

/// One imported module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Import {
    /// The dotted module name as written, without the leading dots of a relative import.
    pub module: String,
    /// The number of leading dots (0 for an absolute import).
    pub level: u32,
    /// For `from` imports, the imported names (`*` included).
    pub names: Vec<String>,
    pub form: ImportForm,
    pub at: Span,
}

impl Import {
    /// The top-level package: `http` for `http.client`.
    pub fn top(&self) -> &str {
        self.module.split('.').next().unwrap_or("")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OsVia {
    /// `os.system`, `o.system`, `__import__("os").system`
    Attribute,
    /// `from os import system`
    FromImport,
    /// a bare name after `from os import *`
    StarImport,
    /// `getattr(os, "system")`
    Getattr,
}

/// A reference to an attribute of `os` (any attribute; the check picks the forbidden ones).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OsReference {
    pub attr: String,
    pub via: OsVia,
    pub at: Span,
}

/// A string (or bytes) literal's text; f-strings contribute their literal parts, each run
/// between two interpolations as one literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Literal {
    /// Shared: an audit's kept chunk walks hand the same literals to every script holding the
    /// chunk.
    pub value: std::sync::Arc<str>,
    pub line: usize,
}

/// What the script does, as far as the checks care.
#[derive(Clone, Debug, Default)]
pub struct Script {
    /// Syntax that Python 3.12 does not have (newer grammar); the rest was read normally.
    pub version_problems: Vec<SyntaxProblem>,
    pub imports: Vec<Import>,
    /// `__import__(name)` / `import_module(name)` whose module is not a literal.
    pub dynamic_imports: Vec<Span>,
    pub os_references: Vec<OsReference>,
    pub literals: Vec<Literal>,
}

#[derive(Clone, Debug)]
pub enum Reading {
    /// The script does not parse; the problems are in source order (the first is CPython's).
    Invalid(Vec<SyntaxProblem>),
    Valid(Script),
}

/// Parse `text` as Python `version` (`"3.12"`) and collect its facts.
///
/// A script is parsed and walked one top-level chunk at a time where the nesting bound allows
/// (see [`ParseCache`] for why that is the whole file's reading), so only one chunk's syntax tree
/// is alive at a time; [`read_whole`] parses the file in one piece.
pub fn read(text: &str, version: &str) -> Reading {
    read_with(text, version, Parses::Streamed)
}

/// [`read`] from one parse of the whole file: the same reading, the oracle of the chunked ones.
pub fn read_whole(text: &str, version: &str) -> Reading {
    read_with(text, version, Parses::Whole)
}

/// [`read`], taking the parses of top-level statements from `cache` where another script had
/// them byte for byte (an audit's runs of one prompt share most of their code), and leaving the
/// new ones there. The reading is the same as [`read`]'s: see [`ParseCache`].
pub fn read_shared(text: &str, version: &str, cache: &ParseCache) -> Reading {
    read_with(text, version, Parses::Shared(cache))
}

/// How [`read_with`] parses a script that the nesting bound allows to be cut.
#[derive(Clone, Copy)]
enum Parses<'c> {
    Whole,
    Streamed,
    Shared(&'c ParseCache),
}

fn read_with(text: &str, version: &str, parses: Parses) -> Reading {
    let lines = LineIndex::new(text);
    // The byte-level bound proves most scripts far from every nesting limit; only the others pay
    // for the exact token-level check (a second full lex).
    let mut starts = Vec::new();
    let scanned = bound::bound_with_starts(text, &mut starts);
    let bound = scanned.filter(|b| {
        b.indent <= MAX_INDENT_DEPTH
            && b.brackets <= MAX_BRACKET_DEPTH
            && b.expression <= MAX_EXPRESSION_DEPTH
    });
    if bound.is_none() {
        if let Some(problem) = nesting_problem(text, &lines) {
            return Reading::Invalid(vec![problem]);
        }
    }
    let target = parse_version(version);
    // The nesting bound keeps recursion shallow, but the AST walk and its drop still recurse
    // once per level: run them where the stack has room for the deepest nesting the bound
    // allows (the caller's stack when it has, else a fresh one). A panic is a failed parse.
    let levels = bound.map_or(MAX_EXPRESSION_DEPTH + MAX_INDENT_DEPTH, |b| {
        b.expression + b.indent
    });
    let red_zone = STACK_BASE_BYTES + levels * STACK_BYTES_PER_LEVEL;
    let chunks = bound.map(|_| chunk_starts(text, &starts));
    let run = || {
        chunks
            .and_then(|at| match parses {
                Parses::Whole => None,
                Parses::Streamed => read_streamed(text, target, &lines, &at),
                Parses::Shared(cache) => read_chunked(text, target, &lines, cache, &at),
            })
            .unwrap_or_else(|| read_bounded(text, target, &lines))
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stacker::maybe_grow(red_zone, STACK_BYTES.max(2 * red_zone), run)
    }))
    .unwrap_or_else(|_| {
        Reading::Invalid(vec![SyntaxProblem {
            at: Span {
                line: 1,
                text: String::new(),
            },
            message: "the Python parser failed on this script".into(),
        }])
    })
}

fn parse_version(version: &str) -> PythonVersion {
    let mut parts = version.split('.').map(|p| p.trim().parse::<u8>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => PythonVersion { major, minor },
        _ => PythonVersion {
            major: 3,
            minor: 12,
        },
    }
}

fn read_bounded(text: &str, target: PythonVersion, lines: &LineIndex) -> Reading {
    match parse_module(text, target) {
        Ok(module) => Reading::Valid(walk_parsed(text, lines, &[(TextSize::new(0), &module)])),
        Err(errors) => {
            let mut problems: Vec<SyntaxProblem> = errors
                .iter()
                .map(|e| SyntaxProblem {
                    at: lines.span(text, e.location),
                    message: e.error.to_string(),
                })
                .collect();
            problems.sort_by_key(|p| p.at.line);
            Reading::Invalid(problems)
        }
    }
}

/// `text` parsed as a module under `target`: its statements and the syntax newer than the
/// target (ranges relative to `text`), or its syntax errors.
fn parse_module(
    text: &str,
    target: PythonVersion,
) -> Result<Chunk, Vec<ruff_python_parser::ParseError>> {
    let options = ParseOptions::from(Mode::Module).with_target_version(target);
    let parsed = parse_unchecked(text, options);
    if !parsed.errors().is_empty() {
        return Err(parsed.errors().to_vec());
    }
    let version_problems = parsed
        .unsupported_syntax_errors()
        .iter()
        .map(|e| (e.range, e.to_string()))
        .collect();
    match parsed.into_syntax() {
        ruff_python_ast::Mod::Module(module) => Ok(Chunk {
            target,
            module,
            version_problems,
            walks: std::sync::Mutex::default(),
        }),
        _ => Err(Vec::new()),
    }
}

/// The parts' syntax newer than their target, in order, placed in `text`.
fn version_problems(
    text: &str,
    lines: &LineIndex,
    parts: &[(TextSize, &Chunk)],
) -> Vec<SyntaxProblem> {
    parts
        .iter()
        .flat_map(|(base, c)| {
            c.version_problems
                .iter()
                .map(|(range, message)| SyntaxProblem {
                    at: lines.span(text, *range + *base),
                    message: message.clone(),
                })
        })
        .collect()
}

/// The facts of a script from the parses of its consecutive parts (the whole file, or its
/// chunks), each with the offset in `text` its ranges are relative to.
fn walk_parsed(text: &str, lines: &LineIndex, parts: &[(TextSize, &Chunk)]) -> Script {
    let version_problems = version_problems(text, lines, parts);
    let bodies: Vec<(TextSize, &[Stmt])> = parts
        .iter()
        .map(|(base, c)| (*base, c.module.body.as_slice()))
        .collect();
    walk_all(text, lines, &bodies, version_problems)
}

/// The facts of a module given as its statements in order, each run with the offset its ranges
/// are relative to.
fn walk_all(
    text: &str,
    lines: &LineIndex,
    bodies: &[(TextSize, &[Stmt])],
    version_problems: Vec<SyntaxProblem>,
) -> Script {
    // Bindings first: uses may come before the import in the text (function bodies). The first
    // walk binds and collects together; its facts stand when no binding was added after its set
    // was consulted (then every lookup saw the final bindings, and another binding walk would add
    // nothing). Otherwise the bindings walk on alone, up to four walks in all, and the facts are
    // collected again with the final ones.
    let mut walk = Walk::first(text, lines, Bindings::default());
    walk.script.version_problems = version_problems;
    let visit = |walk: &mut Walk| {
        for (base, body) in bodies {
            walk.base = *base;
            walk.visit_body(body);
        }
    };
    visit(&mut walk);
    if walk.b.unsettled {
        walk.collect = false;
        for _ in 1..4 {
            let before = walk.b.size();
            visit(&mut walk);
            if walk.b.size() == before {
                break;
            }
        }
        walk.bind = false;
        walk.collect = true;
        walk.script = Script {
            version_problems: std::mem::take(&mut walk.script.version_problems),
            ..Script::default()
        };
        visit(&mut walk);
    }
    walk.script
}

// ---------------------------------------------------------------------------------------------
// Shared parses of top-level statements.

/// Parses of top-level chunks of scripts, shared between the scripts one process reads (an
/// audit's runs): keyed by the chunk's exact text and the target version, so a chunk another
/// script had byte for byte is not parsed again.
///
/// Why the reading is [`read`]'s:
/// - A script is cut only where [`bound::bound_with_starts`] proved a logical line ends (outside
///   strings, brackets and continuations) and the next line starts a statement at column 0
///   (a letter, `_` or `@`): there the lexer's state is the state at the start of a file
///   (nothing open, indentation 0), and a module is its statements in order, so each chunk
///   parses to the same statements, their ranges shifted by the chunk's start.
/// - Chunks are whole `def`/`class` statements (with their decorators) or the runs of other
///   statements between them, so the same function is the same chunk in every script. No cut
///   falls before `else`/`elif`/`except`/`finally` or after a decorator: such a chunk would not
///   parse, and the fallback below would parse the whole script again.
/// - If any chunk does not parse cleanly (a cut the bound got wrong would leave a string, a
///   bracket or a block unfinished), or its parse panics, the whole script is parsed as [`read`]
///   does, so every syntax error is reported from the whole file.
/// - The walk over the chunks' statements is the walk over the whole module's, offset by each
///   chunk's start; version problems are shifted the same way.
///
/// Memory is bounded: the cache is emptied when the chunk text it holds passes
/// [`ParseCache::MAX_TEXT`].
#[derive(Default)]
pub struct ParseCache {
    chunks: std::sync::Mutex<Chunks>,
}

#[derive(Default)]
struct Chunks {
    /// foldhash: a chunk's whole text is its key (SipHash was a tenth of a cached script read).
    map: std::collections::HashMap<Box<str>, std::sync::Arc<Chunk>, foldhash::fast::RandomState>,
    text_bytes: usize,
}

/// A clean parse (of a chunk or a whole file): its statements and the syntax newer than its
/// target version, ranges relative to the parsed text.
struct Chunk {
    target: PythonVersion,
    module: ruff_python_ast::ModModule,
    version_problems: Vec<(TextRange, String)>,
    /// Walks of this chunk by the bindings they started from (see [`walk_chunks`]); filled only
    /// for chunks of a [`ParseCache`].
    walks: std::sync::Mutex<Vec<(String, std::sync::Arc<ChunkWalk>)>>,
}

/// One chunk's walk (binding and collecting) from given bindings: its facts with lines counted
/// from the chunk's first line, the bindings after it, and what [`Bindings`] recorded.
struct ChunkWalk {
    facts: Script,
    after: BoundNames,
    asked: u8,
    added: u8,
    unsettled: bool,
}

/// Walks kept per chunk at most (one per distinct set of bindings it was reached with).
const WALKS_PER_CHUNK: usize = 4;

impl ParseCache {
    /// Chunk text held at most (bytes); the parsed statements take some 20 times as much.
    pub const MAX_TEXT: usize = 512 << 10;

    /// How many chunk parses the cache holds.
    pub fn len(&self) -> usize {
        self.chunks.lock().map_or(0, |c| c.map.len())
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn get(&self, text: &str, target: PythonVersion) -> Option<std::sync::Arc<Chunk>> {
        let chunks = self.chunks.lock().ok()?;
        chunks.map.get(text).filter(|c| c.target == target).cloned()
    }

    fn put(&self, text: &str, chunk: std::sync::Arc<Chunk>) {
        let Ok(mut chunks) = self.chunks.lock() else {
            return;
        };
        if chunks.text_bytes + text.len() > Self::MAX_TEXT {
            chunks.map.clear();
            chunks.text_bytes = 0;
        }
        if text.len() <= Self::MAX_TEXT && chunks.map.insert(text.into(), chunk).is_none() {
            chunks.text_bytes += text.len();
        }
    }
}

/// What starts a line, as far as cutting goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Decorator,
    /// `def`, `class`, `async`.
    Definition,
    /// `else`, `elif`, `except`, `finally`: continues the statement before.
    Continuation,
    Other,
}

fn line_kind(line: &[u8]) -> LineKind {
    let word_end = line
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .unwrap_or(line.len());
    match &line[..word_end] {
        _ if line.first() == Some(&b'@') => LineKind::Decorator,
        b"def" | b"class" | b"async" => LineKind::Definition,
        b"else" | b"elif" | b"except" | b"finally" => LineKind::Continuation,
        _ => LineKind::Other,
    }
}

/// Where the chunks start (the first at 0), from the statement starts the bound found.
fn chunk_starts(text: &str, starts: &[usize]) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = vec![0];
    let mut prev = line_kind(b);
    for &s in starts {
        let kind = line_kind(&b[s..]);
        let cut = kind != LineKind::Continuation
            && prev != LineKind::Decorator
            && (matches!(kind, LineKind::Decorator | LineKind::Definition)
                || prev == LineKind::Definition);
        if cut && s > *out.last().unwrap_or(&0) {
            out.push(s);
        }
        if kind != LineKind::Continuation {
            prev = kind;
        }
    }
    out
}

/// The reading from chunk parses, or None when a chunk does not parse cleanly (the caller then
/// parses the whole script).
fn read_chunked(
    text: &str,
    target: PythonVersion,
    lines: &LineIndex,
    cache: &ParseCache,
    starts: &[usize],
) -> Option<Reading> {
    if starts.len() < 2 {
        return None;
    }
    let mut parsed = Vec::with_capacity(starts.len());
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let chunk_text = text.get(start..end)?;
        let (chunk, seen) = match cache.get(chunk_text, target) {
            Some(c) => (c, true),
            None => {
                let c = std::sync::Arc::new(parse_chunk(chunk_text, target)?);
                cache.put(chunk_text, c.clone());
                (c, false)
            }
        };
        parsed.push((TextSize::new(u32::try_from(start).ok()?), chunk, seen));
    }
    let parts: Vec<(TextSize, &Chunk)> = parsed.iter().map(|(b, c, _)| (*b, c.as_ref())).collect();
    let seen: Vec<bool> = parsed.iter().map(|(_, _, seen)| *seen).collect();
    Some(Reading::Valid(
        walk_chunks(text, lines, &parts, &seen).unwrap_or_else(|| walk_parsed(text, lines, &parts)),
    ))
}

/// The facts of a script from one walk over its chunks in order, where a chunk met before (in
/// any script: `seen`) contributes its kept walk from the same bindings, walked from its own text
/// and kept the first time; a chunk parsed just now is walked in place (most are never met again).
/// None when the bindings do not settle on this one walk (then [`walk_parsed`] walks again).
///
/// Why this is [`walk_all`]'s reading: its first walk visits the chunks in order with one
/// [`Bindings`]; what a chunk adds and collects depends only on the chunk's statements and the
/// bindings' names when the walk enters it (lookups read names; `asked` and `unsettled` only
/// record). A chunk's facts are the same walked from its own text with its own line index, lines
/// shifted by the lines before the chunk (chunks are whole lines; a span's text is the range's
/// first line). The walk is unsettled exactly when some binding was added after its set was
/// consulted: within the kept chunk (its `unsettled`), or before it (its `added` against the sets
/// consulted so far).
fn walk_chunks(
    text: &str,
    lines: &LineIndex,
    parts: &[(TextSize, &Chunk)],
    seen: &[bool],
) -> Option<Script> {
    let mut walk = Walk::first(text, lines, Bindings::default());
    for (k, (base, chunk)) in parts.iter().enumerate() {
        if !seen.get(k).copied().unwrap_or(false) {
            walk.base = *base;
            walk.visit_body(&chunk.module.body);
            continue;
        }
        let start = base.to_usize();
        let end = parts.get(k + 1).map_or(text.len(), |(n, _)| n.to_usize());
        let key = walk.b.key();
        let kept = chunk.walks.lock().ok().and_then(|w| {
            w.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, walk)| walk.clone())
        });
        let kept = match kept {
            Some(kept) => kept,
            None => {
                let chunk_text = text.get(start..end)?;
                let local = LineIndex::new(chunk_text);
                let mut w = Walk::first(chunk_text, &local, Bindings::entering(&walk.b.names()));
                w.visit_body(&chunk.module.body);
                let kept = std::sync::Arc::new(ChunkWalk {
                    asked: w.b.asked.get(),
                    added: w.b.added,
                    unsettled: w.b.unsettled,
                    after: w.b.names(),
                    facts: w.script,
                });
                if let Ok(mut walks) = chunk.walks.lock() {
                    if walks.len() < WALKS_PER_CHUNK {
                        walks.push((key, kept.clone()));
                    }
                }
                kept
            }
        };
        let asked = walk.b.asked.get();
        walk.b.unsettled |= kept.unsettled || kept.added & asked != 0;
        walk.b.asked.set(asked | kept.asked);
        walk.b.set_names(&kept.after);
        walk.script
            .append_shifted(&kept.facts, lines.line(*base) - 1);
    }
    if walk.b.unsettled {
        return None;
    }
    walk.script.version_problems = version_problems(text, lines, parts);
    Some(walk.script)
}

impl Script {
    /// Append `other`'s facts with every line moved down by `by`.
    fn append_shifted(&mut self, other: &Script, by: usize) {
        let at = |s: &Span| Span {
            line: s.line + by,
            text: s.text.clone(),
        };
        self.imports.extend(other.imports.iter().map(|i| Import {
            at: at(&i.at),
            ..i.clone()
        }));
        self.dynamic_imports
            .extend(other.dynamic_imports.iter().map(at));
        self.os_references
            .extend(other.os_references.iter().map(|r| OsReference {
                attr: r.attr.clone(),
                via: r.via,
                at: at(&r.at),
            }));
        self.literals.extend(other.literals.iter().map(|l| Literal {
            value: l.value.clone(),
            line: l.line + by,
        }));
    }
}

/// The reading from chunk parses walked one at a time and dropped, or None when a chunk does
/// not parse cleanly or the one walk does not settle the bindings (the caller then parses the
/// whole script). Same reading as the whole parse's, for the reasons [`ParseCache`] gives; the
/// point is memory: one chunk's syntax tree is alive at a time rather than the whole script's
/// (some twenty times its size), and on this class of machine every fresh page a process
/// touches costs several microseconds.
fn read_streamed(
    text: &str,
    target: PythonVersion,
    lines: &LineIndex,
    starts: &[usize],
) -> Option<Reading> {
    if starts.len() < 2 {
        return None;
    }
    let mut walk = Walk::first(text, lines, Bindings::default());
    let mut version_problems = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let chunk = parse_chunk(text.get(start..end)?, target)?;
        let base = TextSize::new(u32::try_from(start).ok()?);
        version_problems.extend(chunk.version_problems.iter().map(|(range, message)| {
            SyntaxProblem {
                at: lines.span(text, *range + base),
                message: message.clone(),
            }
        }));
        walk.base = base;
        walk.visit_body(&chunk.module.body);
    }
    // As in `walk_all`: the first walk's facts stand only when no binding came after its set
    // was consulted; otherwise the whole script is parsed and walked again.
    if walk.b.unsettled {
        return None;
    }
    walk.script.version_problems = version_problems;
    Some(Reading::Valid(walk.script))
}

/// A chunk's parse when it is clean (no syntax error, no panic).
fn parse_chunk(text: &str, target: PythonVersion) -> Option<Chunk> {
    std::panic::catch_unwind(|| parse_module(text, target).ok())
        .ok()
        .flatten()
}

// ---------------------------------------------------------------------------------------------
// Nesting bound, from tokens alone (the lexer is iterative).

/// A script nested deeper than CPython 3.12 accepts, as a syntax problem, found before parsing.
///
/// Expression depth is bounded per logical line by counting, for each open bracket level, the
/// operator and keyword tokens since the last comma at that level (a comma always separates
/// sibling subtrees), plus one per open bracket. That count is at least the AST depth.
fn nesting_problem(text: &str, lines: &LineIndex) -> Option<SyntaxProblem> {
    let mut lexer = lex(text, Mode::Module);
    let mut counters: Vec<usize> = vec![0];
    let mut indent = 0usize;
    // The lexer does not expose token offsets; lines are counted from newline tokens, which is
    // exact unless a multi-line string or a backslash continuation comes first.
    let mut line = 1usize;
    loop {
        let kind = lexer.next_token();
        let message = match kind {
            TokenKind::EndOfFile => return None,
            TokenKind::Newline | TokenKind::NonLogicalNewline => {
                line += 1;
                if kind == TokenKind::Newline {
                    counters = vec![0];
                }
                None
            }
            TokenKind::Indent => {
                indent += 1;
                (indent > MAX_INDENT_DEPTH).then(|| {
                    format!("too many levels of indentation (more than {MAX_INDENT_DEPTH}, CPython's limit)")
                })
            }
            TokenKind::Dedent => {
                indent = indent.saturating_sub(1);
                None
            }
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => {
                counters.push(0);
                (counters.len() - 1 > MAX_BRACKET_DEPTH).then(|| {
                    format!("too many nested parentheses (more than {MAX_BRACKET_DEPTH}, CPython's limit)")
                })
            }
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                if counters.len() > 1 {
                    counters.pop();
                }
                None
            }
            TokenKind::Comma => {
                if let Some(top) = counters.last_mut() {
                    *top = 0;
                }
                None
            }
            k if k.is_operator() || k.is_keyword() => {
                if let Some(top) = counters.last_mut() {
                    *top += 1;
                }
                let depth = counters.iter().sum::<usize>() + counters.len();
                (depth > MAX_EXPRESSION_DEPTH).then(|| {
                    format!(
                        "expression nested too deeply (more than {MAX_EXPRESSION_DEPTH} levels; \
                         CPython 3.12 refuses to compile it)"
                    )
                })
            }
            _ => None,
        };
        if let Some(message) = message {
            return Some(SyntaxProblem {
                at: lines.line_span(text, line),
                message,
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Lines and spans.

struct LineIndex {
    /// Byte offset of each line's start.
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        if !bytes.contains(&b'\r') {
            // Lines end at `\n` only: let memchr find them.
            let starts = std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1))
                .collect();
            return LineIndex { starts };
        }
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    starts.push(i + 2);
                    i += 1;
                }
                b'\r' => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex { starts }
    }

    /// 1-based line of a byte offset.
    fn line(&self, offset: TextSize) -> usize {
        self.starts.partition_point(|&s| s <= offset.to_usize())
    }

    /// A whole line as a span (1-based; clamped to the last line).
    fn line_span(&self, text: &str, line: usize) -> Span {
        let line = line.clamp(1, self.starts.len());
        let start = self.starts[line - 1];
        let end = self.starts.get(line).copied().unwrap_or(text.len());
        let range = TextRange::new(TextSize::new(start as u32), TextSize::new(end as u32));
        self.span(text, range)
    }

    fn span(&self, text: &str, range: TextRange) -> Span {
        let start = range.start().to_usize().min(text.len());
        let end = range.end().to_usize().clamp(start, text.len());
        let slice = text.get(start..end).unwrap_or("");
        let first = slice.lines().next().unwrap_or("").trim_end();
        let mut shown: String = first.chars().take(SHOWN_CHARS).collect();
        if shown.len() < slice.trim_end().len() {
            shown.push('…');
        }
        Span {
            line: self.line(range.start()),
            text: shown,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bindings: which names are bound to `os`, to `importlib`, or to `import_module`.

/// The names of [`Bindings`] alone (what a kept chunk walk leaves bound).
#[derive(Clone, Default)]
struct BoundNames {
    os: HashSet<String>,
    importlib: HashSet<String>,
    import_module: HashSet<String>,
    os_star: bool,
}

#[derive(Default)]
struct Bindings {
    os: HashSet<String>,
    importlib: HashSet<String>,
    import_module: HashSet<String>,
    /// `from os import *` somewhere.
    os_star: bool,
    /// Which of the above were consulted since the walk began (bits [`OS`], …).
    asked: Cell<u8>,
    /// A binding was added after its set was consulted on this walk.
    unsettled: bool,
    /// Which sets got a new name on this walk (bits as `asked`).
    added: u8,
}

const OS: u8 = 1;
const IMPORTLIB: u8 = 2;
const IMPORT_MODULE: u8 = 4;
const OS_STAR: u8 = 8;

impl Bindings {
    fn size(&self) -> usize {
        self.os.len() + self.importlib.len() + self.import_module.len() + usize::from(self.os_star)
    }

    fn set(&self, which: u8) -> &HashSet<String> {
        match which {
            OS => &self.os,
            IMPORTLIB => &self.importlib,
            _ => &self.import_module,
        }
    }

    /// Whether `name` is bound in set `which` ([`OS`], [`IMPORTLIB`] or [`IMPORT_MODULE`]).
    fn has(&self, which: u8, name: &str) -> bool {
        self.asked.set(self.asked.get() | which);
        let set = self.set(which);
        // Nearly every script binds `os` once or not at all: a few names are compared, not
        // hashed (this runs at every attribute and call of the script).
        if set.len() <= 4 {
            set.iter().any(|s| s == name)
        } else {
            set.contains(name)
        }
    }

    /// Its names, without the record of the walk.
    fn names(&self) -> BoundNames {
        BoundNames {
            os: self.os.clone(),
            importlib: self.importlib.clone(),
            import_module: self.import_module.clone(),
            os_star: self.os_star,
        }
    }

    /// Take the names of `names`, keeping the record of the walk.
    fn set_names(&mut self, names: &BoundNames) {
        let n = names.clone();
        self.os = n.os;
        self.importlib = n.importlib;
        self.import_module = n.import_module;
        self.os_star = n.os_star;
    }

    /// Bindings of `names`, with nothing consulted or added yet: the state a walk enters a
    /// chunk in.
    fn entering(names: &BoundNames) -> Bindings {
        let n = names.clone();
        Bindings {
            os: n.os,
            importlib: n.importlib,
            import_module: n.import_module,
            os_star: n.os_star,
            ..Bindings::default()
        }
    }

    /// The names, as a key: what a chunk's walk depends on besides the chunk.
    fn key(&self) -> String {
        let mut key = String::new();
        for set in [&self.os, &self.importlib, &self.import_module] {
            let mut names: Vec<&String> = set.iter().collect();
            names.sort();
            for n in names {
                key.push_str(n);
                key.push(',');
            }
            key.push(';');
        }
        key.push(if self.os_star { '*' } else { '-' });
        key
    }

    fn add(&mut self, which: u8, name: &str) {
        if self.set(which).contains(name) {
            return;
        }
        self.added |= which;
        self.unsettled |= self.asked.get() & which != 0;
        let set = match which {
            OS => &mut self.os,
            IMPORTLIB => &mut self.importlib,
            _ => &mut self.import_module,
        };
        set.insert(name.to_string());
    }

    fn os_star(&self) -> bool {
        self.asked.set(self.asked.get() | OS_STAR);
        self.os_star
    }

    fn add_os_star(&mut self) {
        if !self.os_star {
            self.added |= OS_STAR;
        }
        self.unsettled |= !self.os_star && self.asked.get() & OS_STAR != 0;
        self.os_star = true;
    }

    /// Whether `expr` evaluates to the `os` module (as far as names tell): a name bound to it,
    /// an import of it, another module's `os` (`shutil.os`, `posixpath.os`), or
    /// `sys.modules["os"]` / `sys.modules.get("os")`.
    fn is_os(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Name(n) => self.has(OS, n.id.as_str()),
            Expr::Attribute(a) => OS_MODULES.contains(&a.attr.id.as_str()),
            Expr::Subscript(sub) => {
                matches!(sub.value.as_ref(), Expr::Attribute(m) if m.attr.id.as_str() == "modules")
                    && matches!(sub.slice.as_ref(), Expr::StringLiteral(s)
                        if OS_MODULES.contains(&join_string(s).as_str()))
            }
            Expr::Call(call)
                if matches!(call.func.as_ref(), Expr::Attribute(g)
                    if g.attr.id.as_str() == "get"
                        && matches!(g.value.as_ref(), Expr::Attribute(m) if m.attr.id.as_str() == "modules")) =>
            {
                matches!(call.arguments.args.first(), Some(Expr::StringLiteral(s))
                    if OS_MODULES.contains(&join_string(s).as_str()))
            }
            Expr::Call(call) => match self.import_call(call) {
                Some((_, Some(Expr::StringLiteral(s)))) => {
                    OS_MODULES.contains(&join_string(s).as_str())
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// When `call` imports a module: its form and its module-name argument.
    fn import_call<'e>(&self, call: &'e ExprCall) -> Option<(ImportForm, Option<&'e Expr>)> {
        let form = match call.func.as_ref() {
            Expr::Name(n) if n.id.as_str() == "__import__" => ImportForm::DunderImport,
            Expr::Name(n) if self.has(IMPORT_MODULE, n.id.as_str()) => ImportForm::ImportModule,
            Expr::Attribute(a) if a.attr.id.as_str() == "__import__" => ImportForm::DunderImport,
            Expr::Attribute(ExprAttribute { value, attr, .. })
                if attr.id.as_str() == "import_module"
                    && matches!(value.as_ref(), Expr::Name(n) if self.has(IMPORTLIB, n.id.as_str())) =>
            {
                ImportForm::ImportModule
            }
            _ => return None,
        };
        let arg = call.arguments.args.first().or_else(|| {
            call.arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "name"))
                .map(|k| &k.value)
        });
        Some((form, arg))
    }
}

impl Walk<'_> {
    fn bind_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    let name = alias.name.id.as_str();
                    let top = name.split('.').next().unwrap_or(name);
                    match &alias.asname {
                        // `import os.path as p` binds `os.path`, not `os`.
                        Some(asname) if name == top => self.bind_module(name, asname.id.as_str()),
                        Some(_) => {}
                        None => self.bind_module(top, top),
                    }
                }
            }
            Stmt::ImportFrom(from) if from.level == 0 => {
                let module = from.module.as_ref().map(|m| m.id.as_str()).unwrap_or("");
                for alias in &from.names {
                    let name = alias.name.id.as_str();
                    let bound = alias.asname.as_ref().map(|a| a.id.as_str()).unwrap_or(name);
                    if OS_MODULES.contains(&module) && name == "*" {
                        self.b.add_os_star();
                    }
                    if module == "importlib" && name == "import_module" {
                        self.b.add(IMPORT_MODULE, bound);
                    }
                }
            }
            Stmt::Assign(assign) if self.b.is_os(&assign.value) => {
                for target in &assign.targets {
                    if let Expr::Name(n) = target {
                        self.b.add(OS, n.id.as_str());
                    }
                }
            }
            _ => {}
        }
    }

    fn bind_expr(&mut self, expr: &Expr) {
        if let Expr::Named(named) = expr {
            if let Expr::Name(n) = named.target.as_ref() {
                if self.b.is_os(&named.value) {
                    self.b.add(OS, n.id.as_str());
                }
            }
        }
    }

    fn bind_module(&mut self, module: &str, bound: &str) {
        if OS_MODULES.contains(&module) {
            self.b.add(OS, bound);
        } else if module == "importlib" {
            self.b.add(IMPORTLIB, bound);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The walk: bindings and facts.

struct Walk<'t> {
    text: &'t str,
    lines: &'t LineIndex,
    /// Where the statements being walked start in `text`: their ranges are relative to it when
    /// they were parsed as a chunk of their own (see [`ParseCache`]), else 0.
    base: TextSize,
    b: Bindings,
    /// Add bindings on this walk.
    bind: bool,
    /// Collect the facts on this walk.
    collect: bool,
    script: Script,
}

impl<'a> Visitor<'a> for Walk<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.bind {
            self.bind_stmt(stmt);
        }
        if self.collect {
            self.fact_stmt(stmt);
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.bind {
            self.bind_expr(expr);
        }
        if self.collect {
            self.fact_expr(expr);
        }
        walk_expr(self, expr);
    }
}

impl<'t> Walk<'t> {
    /// A first walk of `text` (binding and collecting) from bindings `b`.
    fn first(text: &'t str, lines: &'t LineIndex, b: Bindings) -> Walk<'t> {
        Walk {
            text,
            lines,
            base: TextSize::new(0),
            b,
            bind: true,
            collect: true,
            script: Script::default(),
        }
    }

    fn span(&self, range: TextRange) -> Span {
        self.lines.span(self.text, range + self.base)
    }

    fn os_reference(&mut self, attr: &str, via: OsVia, range: TextRange) {
        let at = self.span(range);
        self.script.os_references.push(OsReference {
            attr: attr.to_string(),
            via,
            at,
        });
    }

    fn literal(&mut self, value: std::sync::Arc<str>, offset: TextSize) {
        let line = self.lines.line(offset + self.base);
        self.script.literals.push(Literal { value, line });
    }

    fn import_call(&mut self, call: &ExprCall) {
        let Some((form, arg)) = self.b.import_call(call) else {
            return;
        };
        let at = self.span(call.range());
        let Some(Expr::StringLiteral(s)) = arg else {
            self.script.dynamic_imports.push(at);
            return;
        };
        let written = join_string(s);
        let module = written.trim_start_matches('.');
        let mut level = (written.len() - module.len()) as u32;
        if form == ImportForm::DunderImport {
            // `__import__(name, globals, locals, fromlist, level)`
            let level_arg = call.arguments.args.get(4).or_else(|| {
                call.arguments
                    .keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "level"))
                    .map(|k| &k.value)
            });
            if let Some(Expr::NumberLiteral(n)) = level_arg {
                if let Some(l) = n.value.as_int().and_then(|i| i.as_u16()) {
                    let l = u32::from(l);
                    level = level.max(l);
                }
            }
        }
        self.script.imports.push(Import {
            module: module.to_string(),
            level,
            names: Vec::new(),
            form,
            at,
        });
    }
}

impl Walk<'_> {
    fn fact_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    let at = self.span(alias.range());
                    self.script.imports.push(Import {
                        module: alias.name.id.to_string(),
                        level: 0,
                        names: Vec::new(),
                        form: ImportForm::Import,
                        at: Span {
                            line: at.line,
                            text: self.span(stmt.range()).text,
                        },
                    });
                }
            }
            Stmt::ImportFrom(from) => {
                let module = from
                    .module
                    .as_ref()
                    .map(|m| m.id.to_string())
                    .unwrap_or_default();
                let names: Vec<String> = from.names.iter().map(|a| a.name.id.to_string()).collect();
                if from.level == 0 && OS_MODULES.contains(&module.as_str()) {
                    for alias in from.names.iter().filter(|a| a.name.id.as_str() != "*") {
                        self.os_reference(alias.name.id.as_str(), OsVia::FromImport, stmt.range());
                    }
                }
                let at = self.span(stmt.range());
                self.script.imports.push(Import {
                    module,
                    level: from.level,
                    names,
                    form: ImportForm::From,
                    at,
                });
            }
            _ => {}
        }
    }

    fn fact_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Attribute(a) if self.b.is_os(&a.value) => {
                self.os_reference(a.attr.id.as_str(), OsVia::Attribute, a.range());
            }
            // `vars(os)["system"]`, `os.__dict__["system"]`: an attribute looked up by name.
            Expr::Subscript(sub) => {
                let of_os = match sub.value.as_ref() {
                    Expr::Call(c) => {
                        matches!(c.func.as_ref(), Expr::Name(f) if f.id.as_str() == "vars")
                            && c.arguments.args.first().is_some_and(|a| self.b.is_os(a))
                    }
                    Expr::Attribute(d) => {
                        d.attr.id.as_str() == "__dict__" && self.b.is_os(&d.value)
                    }
                    _ => false,
                };
                if let (true, Expr::StringLiteral(name)) = (of_os, sub.slice.as_ref()) {
                    self.os_reference(&join_string(name), OsVia::Getattr, sub.range());
                }
            }
            Expr::Name(n) if self.b.os_star() => {
                self.os_reference(n.id.as_str(), OsVia::StarImport, n.range());
            }
            Expr::Call(call) => {
                self.import_call(call);
                if let (Expr::Name(f), [obj, Expr::StringLiteral(name), ..]) =
                    (call.func.as_ref(), call.arguments.args.as_ref())
                {
                    if matches!(f.id.as_str(), "getattr" | "hasattr") && self.b.is_os(obj) {
                        self.os_reference(&join_string(name), OsVia::Getattr, call.range());
                    }
                }
            }
            Expr::StringLiteral(s) => {
                let value: std::sync::Arc<str> = match s.value.iter().as_slice() {
                    [one] => one.value.as_ref().into(),
                    _ => join_string(s).into(),
                };
                self.literal(value, s.range().start())
            }
            Expr::BytesLiteral(b) => {
                let bytes: Vec<u8> = b
                    .value
                    .iter()
                    .flat_map(|p| p.value.iter().copied())
                    .collect();
                self.literal(
                    String::from_utf8_lossy(&bytes).as_ref().into(),
                    b.range().start(),
                );
            }
            Expr::FString(f) => {
                let mut run = String::new();
                let mut run_start = f.range().start();
                for part in f.value.iter() {
                    match part {
                        FStringPart::Literal(s) => run.push_str(&s.value),
                        FStringPart::FString(fs) => {
                            for element in fs.elements.iter() {
                                match element {
                                    InterpolatedStringElement::Literal(l) => {
                                        if run.is_empty() {
                                            run_start = l.range().start();
                                        }
                                        run.push_str(&l.value);
                                    }
                                    InterpolatedStringElement::Interpolation(_) => {
                                        if !run.is_empty() {
                                            self.literal(
                                                std::mem::take(&mut run).into(),
                                                run_start,
                                            );
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                if !run.is_empty() {
                    self.literal(run.into(), run_start);
                }
            }
            _ => {}
        }
    }
}

fn join_string(s: &ruff_python_ast::ExprStringLiteral) -> String {
    s.value.iter().map(|p| &*p.value).collect()
}
