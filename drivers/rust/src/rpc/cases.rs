//! Library-independent parts of the rpc cases (docs/workloads.md): the tables the generator
//! indexes, the car valuation, the eval arithmetic and the catrank scoring. Each library
//! reads its own message types and calls these.

use crate::rng::Rng;

// ---- carsales -------------------------------------------------------------------------

pub const MAKES: [&str; 5] = ["Toyota", "GM", "Ford", "Honda", "Tesla"];
pub const MODELS: [&str; 6] = ["Camry", "Prius", "Volt", "Accord", "Leaf", "Model S"];
pub const COLORS: u32 = 9;

/// Everything a car's value depends on; each library fills it from its own accessors.
pub struct CarFacts {
    pub seats: u32,
    pub doors: u32,
    /// Over the wheels: diameter^2 + (100 if snow tires).
    pub wheel_sum: u32,
    pub length: u32,
    pub width: u32,
    pub height: u32,
    pub horsepower: u32,
    pub uses_gas: bool,
    pub uses_electric: bool,
    pub power_windows: bool,
    pub power_steering: bool,
    pub cruise_control: bool,
    pub nav_system: bool,
    pub cup_holders: u32,
}

#[inline(always)]
pub fn wheel_value(diameter: u32, snow_tires: bool) -> u32 {
    diameter
        .wrapping_mul(diameter)
        .wrapping_add(if snow_tires { 100 } else { 0 })
}

/// The car's value, with the C++ driver's 32-bit intermediate arithmetic.
#[inline(always)]
pub fn car_value(c: &CarFacts) -> u64 {
    let mut v: u64 = 0;
    v += u64::from(c.seats.wrapping_mul(200));
    v += u64::from(c.doors.wrapping_mul(350));
    v += u64::from(c.wheel_sum);
    v += u64::from(c.length.wrapping_mul(c.width).wrapping_mul(c.height) / 50);
    v += u64::from(c.horsepower.wrapping_mul(40));
    if c.uses_electric {
        v += if c.uses_gas { 5000 } else { 3000 };
    }
    v += if c.power_windows { 100 } else { 0 };
    v += if c.power_steering { 200 } else { 0 };
    v += if c.cruise_control { 400 } else { 0 };
    v += if c.nav_system { 2000 } else { 0 };
    v += u64::from(c.cup_holders.wrapping_mul(25));
    v
}

// ---- catrank --------------------------------------------------------------------------

pub const URL_PREFIX: &str = "http://example.com/";
pub const WORDS: [&str; 13] = [
    "foo ", "bar ", "baz ", "qux ", "quux ", "corge ", "grault ", "garply ", "waldo ", "fred ",
    "plugh ", "xyzzy ", "thud ",
];

/// Appends a url's random letters (`rand(100)` of `'a' + rand(26)`) after the prefix.
#[inline(always)]
pub fn append_url(rng: &mut Rng, out: &mut String) {
    out.push_str(URL_PREFIX);
    for _ in 0..rng.rand(100) {
        out.push(char::from(b'a' + rng.rand(26) as u8));
    }
}

/// Appends the snippet to `out`, drawing in the documented order; returns whether the
/// result is "good" (cat, no dog).
#[inline(always)]
pub fn append_snippet(rng: &mut Rng, out: &mut String) -> bool {
    let is_cat = rng.rand(8) == 0;
    let is_dog = rng.rand(8) == 0;
    out.push(' ');
    for _ in 0..rng.rand(20) {
        out.push_str(WORDS[rng.rand(13) as usize]);
    }
    if is_cat {
        out.push_str("cat ");
    }
    if is_dog {
        out.push_str("dog ");
    }
    for _ in 0..rng.rand(20) {
        out.push_str(WORDS[rng.rand(13) as usize]);
    }
    is_cat && !is_dog
}

/// The server's rescoring of one result. `str::contains` is std's two-way searcher, which
/// on x86_64 takes a SIMD path for short needles like these (the C++ uses glibc strstr).
#[inline(always)]
pub fn rescore(score: f64, snippet: &str) -> f64 {
    let mut s = score;
    if snippet.contains(" cat ") {
        s *= 10000.0;
    }
    if snippet.contains(" dog ") {
        s /= 10000.0;
    }
    s
}

/// A response's answer: the number of leading results scoring above 1001.
pub fn leading_good(scores: impl Iterator<Item = f64>) -> i64 {
    let mut good = 0;
    for s in scores {
        if s > 1001.0 {
            good += 1;
        } else {
            break;
        }
    }
    good
}

// ---- eval -----------------------------------------------------------------------------

pub const OPS: u32 = 5; // add, subtract, multiply, divide, modulus

/// 32-bit two's complement with wrapping; x/0, x%0, INT_MIN/-1, INT_MIN%-1 give INT_MAX.
#[inline(always)]
pub fn apply(op: u32, left: i32, right: i32) -> i32 {
    match op {
        0 => left.wrapping_add(right),
        1 => left.wrapping_sub(right),
        2 => left.wrapping_mul(right),
        3 => {
            if right == 0 || (left == i32::MIN && right == -1) {
                i32::MAX
            } else {
                left / right
            }
        }
        _ => {
            if right == 0 || (left == i32::MIN && right == -1) {
                i32::MAX
            } else {
                left % right
            }
        }
    }
}
