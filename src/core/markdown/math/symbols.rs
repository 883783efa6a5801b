//! The LaTeX commands the converter knows, as data: symbols, function names, font maps.

/// What a command stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Symbol {
    /// An identifier (`<mi>`): Greek letters, `\infty`, `\hbar`.
    Ident(&'static str),
    /// An operator, relation or delimiter (`<mo>`).
    Op(&'static str),
    /// A large operator whose limits go under and over it in display math.
    BigOp(&'static str),
    /// A function name written upright (`<mi>sin</mi>`); `true` if its limits go under it in
    /// display math (`\lim`, `\max`).
    Func(&'static str, bool),
}

/// Every command [`symbol`] knows, one per line: its name, its kind (`i` identifier, `o`
/// operator, `b` large operator, `f` function name, `F` one whose limits go under it) and what
/// it stands for. One text rather than a `match`: the match compiled to a comparison tree of
/// about 6 KB of wasm for what is data; scanning this is as fast as math rendering needs.
const SYMBOLS: &str = "lim F lim
max F max
min F min
sup F sup
inf F inf
det F det
gcd F gcd
Pr F Pr
argmax F argmax
argmin F argmin
sin f sin
cos f cos
tan f tan
cot f cot
sec f sec
csc f csc
sinh f sinh
cosh f cosh
tanh f tanh
arcsin f arcsin
arccos f arccos
arctan f arctan
log f log
ln f ln
lg f lg
exp f exp
deg f deg
arg f arg
dim f dim
ker f ker
hom f hom
mod f mod
bmod f bmod
alpha i α
beta i β
gamma i γ
delta i δ
epsilon i ϵ
varepsilon i ε
zeta i ζ
eta i η
theta i θ
vartheta i ϑ
iota i ι
kappa i κ
lambda i λ
mu i μ
nu i ν
xi i ξ
pi i π
varpi i ϖ
rho i ρ
varrho i ϱ
sigma i σ
varsigma i ς
tau i τ
upsilon i υ
phi i ϕ
varphi i φ
chi i χ
psi i ψ
omega i ω
Gamma i Γ
Delta i Δ
Theta i Θ
Lambda i Λ
Xi i Ξ
Pi i Π
Sigma i Σ
Upsilon i Υ
Phi i Φ
Psi i Ψ
Omega i Ω
infty i ∞
partial i ∂
nabla i ∇
hbar i ℏ
ell i ℓ
Re i ℜ
Im i ℑ
aleph i ℵ
emptyset i ∅
varnothing i ∅
dots i …
ldots i …
cdots o ⋯
vdots o ⋮
ddots o ⋱
prime o ′
times o ×
cdot o ⋅
pm o ±
mp o ∓
div o ÷
ast o ∗
star o ⋆
circ o ∘
bullet o ∙
oplus o ⊕
otimes o ⊗
leq o ≤
le o ≤
geq o ≥
ge o ≥
neq o ≠
ne o ≠
lt o <
gt o >
ll o ≪
gg o ≫
approx o ≈
equiv o ≡
sim o ∼
simeq o ≃
cong o ≅
propto o ∝
perp o ⊥
parallel o ∥
mid o ∣
in o ∈
notin o ∉
ni o ∋
subset o ⊂
subseteq o ⊆
supset o ⊃
supseteq o ⊇
cup o ∪
cap o ∩
setminus o ∖
forall o ∀
exists o ∃
neg o ¬
lnot o ¬
land o ∧
wedge o ∧
lor o ∨
vee o ∨
to o →
rightarrow o →
gets o ←
leftarrow o ←
leftrightarrow o ↔
Rightarrow o ⇒
implies o ⇒
Leftarrow o ⇐
Leftrightarrow o ⇔
iff o ⇔
mapsto o ↦
uparrow o ↑
downarrow o ↓
langle o ⟨
rangle o ⟩
lfloor o ⌊
rfloor o ⌋
lceil o ⌈
rceil o ⌉
vert o |
Vert o ‖
| o ‖
{ o {
lbrace o {
} o }
rbrace o }
colon o :
angle o ∠
triangle o △
top o ⊤
bot o ⊥
% o %
$ o $
# o #
& o &
_ o _
sum b ∑
prod b ∏
coprod b ∐
bigcup b ⋃
bigcap b ⋂
int o ∫
iint o ∬
iiint o ∭
oint o ∮";

/// Looks up `\name` (without the backslash).
pub(super) fn symbol(name: &str) -> Option<Symbol> {
    let line = SYMBOLS
        .lines()
        .find(|l| l.split(' ').next() == Some(name))?;
    let mut parts = line.splitn(3, ' ').skip(1);
    let (kind, text) = (parts.next()?, parts.next()?);
    match kind {
        "i" => Some(Symbol::Ident(text)),
        "o" => Some(Symbol::Op(text)),
        "b" => Some(Symbol::BigOp(text)),
        "f" => Some(Symbol::Func(text, false)),
        "F" => Some(Symbol::Func(text, true)),
        _ => None,
    }
}

/// Accent commands and the mark they put over their argument.
pub(super) fn accent(name: &str) -> Option<&'static str> {
    Some(match name {
        "hat" | "widehat" => "^",
        "bar" | "overline" => "¯",
        "vec" | "overrightarrow" => "→",
        "dot" => "˙",
        "ddot" => "¨",
        "tilde" | "widetilde" => "~",
        _ => return None,
    })
}

/// Width of a spacing command, from the fixed set the allowlist accepts.
pub(super) fn space(name: &str) -> Option<&'static str> {
    Some(match name {
        "," | "thinspace" => "0.167em",
        ":" | ">" | "medspace" => "0.222em",
        ";" | "thickspace" => "0.278em",
        " " | "space" => "0.25em",
        "quad" => "1em",
        "qquad" => "2em",
        _ => return None,
    })
}

/// Every width [`space`] can return, for the allowlist.
#[cfg(test)]
pub(crate) const SPACE_WIDTHS: [&str; 6] =
    ["0.167em", "0.222em", "0.278em", "0.25em", "1em", "2em"];

/// A letter in one of the math alphabets (`\mathbb`, `\mathbf`, `\mathcal`), as the Unicode
/// mathematical alphanumeric character: MathML Core draws only `mathvariant="normal"`, so the
/// style has to live in the character itself.
pub(super) fn styled(font: &str, c: char) -> Option<char> {
    let (upper, lower, holes): (u32, Option<u32>, &[(char, char)]) = match font {
        "mathbb" => (
            0x1D538,
            Some(0x1D552),
            &[
                ('C', 'ℂ'),
                ('H', 'ℍ'),
                ('N', 'ℕ'),
                ('P', 'ℙ'),
                ('Q', 'ℚ'),
                ('R', 'ℝ'),
                ('Z', 'ℤ'),
            ],
        ),
        "mathbf" | "boldsymbol" | "bm" => (0x1D400, Some(0x1D41A), &[]),
        "mathcal" | "mathscr" => (
            0x1D49C,
            None,
            &[
                ('B', 'ℬ'),
                ('E', 'ℰ'),
                ('F', 'ℱ'),
                ('H', 'ℋ'),
                ('I', 'ℐ'),
                ('L', 'ℒ'),
                ('M', 'ℳ'),
                ('R', 'ℛ'),
            ],
        ),
        _ => return None,
    };
    if let Some(&(_, hole)) = holes.iter().find(|(from, _)| *from == c) {
        return Some(hole);
    }
    let base = if c.is_ascii_uppercase() {
        upper + (c as u32 - 'A' as u32)
    } else if c.is_ascii_lowercase() {
        lower? + (c as u32 - 'a' as u32)
    } else if font == "mathbf" && c.is_ascii_digit() {
        0x1D7CE + (c as u32 - '0' as u32)
    } else {
        return Some(c);
    };
    char::from_u32(base)
}

#[cfg(test)]
mod table_tests {
    use super::*;

    #[test]
    fn every_line_of_the_table_reads_and_names_are_unique() {
        let mut seen: Vec<&str> = Vec::new();
        for line in SYMBOLS.lines() {
            let name = line.split(' ').next().unwrap_or("");
            assert!(!name.is_empty() && !seen.contains(&name), "{line}");
            seen.push(name);
            assert!(symbol(name).is_some(), "{line}");
        }
        assert_eq!(seen.len(), 182);
        assert_eq!(symbol("alpha"), Some(Symbol::Ident("α")));
        assert_eq!(symbol("le"), symbol("leq"));
        assert_eq!(symbol("lim"), Some(Symbol::Func("lim", true)));
        assert_eq!(symbol("sin"), Some(Symbol::Func("sin", false)));
        assert_eq!(
            symbol("sum").map(|s| matches!(s, Symbol::BigOp(_))),
            Some(true)
        );
        assert_eq!(symbol("alph"), None);
        assert_eq!(symbol(""), None);
    }
}
