//! Genre families: the ten colours of the map, derived once from a band's genre text when
//! the snapshot is built (docs/map.md, "Genre families"), and the per-cluster mix of
//! families (`/api/clusters?breakdown=families`).
//!
//! The rule, in short: the genre text is cut into styles at `/`, `,`, `;`, `|`, `(`, `)`,
//! ` and `, ` & `, ` with `; the **first style that names a family** decides; inside a style
//! the **rightmost** family word wins, because modifiers come first (`Symphonic Black
//! Metal` is black, `Blackened Death Metal` death, `Deathcore` grind/core). No family word
//! anywhere → `other`.

/// Number of families.
pub const COUNT: usize = 10;

/// A genre family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Family {
    /// Black metal.
    Black = 0,
    /// Death metal.
    Death = 1,
    /// Doom, stoner, sludge, drone.
    Doom = 2,
    /// Thrash and speed metal.
    Thrash = 3,
    /// Heavy, power, NWOBHM.
    HeavyPower = 4,
    /// Progressive, avant-garde, djent.
    Progressive = 5,
    /// Folk, pagan, viking, celtic, medieval.
    FolkPagan = 6,
    /// Gothic, symphonic.
    GothicSymphonic = 7,
    /// Grindcore, crust and the -core styles.
    GrindCore = 8,
    /// Anything else, and bands without a genre.
    Other = 9,
}

impl Family {
    /// Every family, in display (and JSON) order.
    pub const ALL: [Family; COUNT] = [
        Family::Black,
        Family::Death,
        Family::Doom,
        Family::Thrash,
        Family::HeavyPower,
        Family::Progressive,
        Family::FolkPagan,
        Family::GothicSymphonic,
        Family::GrindCore,
        Family::Other,
    ];

    /// The name used by the API (`family=` values, `families` keys, a point's `family`).
    pub fn name(self) -> &'static str {
        match self {
            Family::Black => "black",
            Family::Death => "death",
            Family::Doom => "doom",
            Family::Thrash => "thrash",
            Family::HeavyPower => "heavy",
            Family::Progressive => "progressive",
            Family::FolkPagan => "folk",
            Family::GothicSymphonic => "gothic",
            Family::GrindCore => "grind",
            Family::Other => "other",
        }
    }

    /// The family of an API name (case-insensitive).
    pub fn parse(name: &str) -> Option<Family> {
        let name = name.trim();
        Family::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// The family at index `i` (`Other` past the end).
    pub fn from_index(i: u8) -> Family {
        Family::ALL
            .get(usize::from(i))
            .copied()
            .unwrap_or(Family::Other)
    }

    /// Its bit in a family mask.
    pub fn bit(self) -> u16 {
        1 << (self as u16)
    }

    /// The family of a band's genre text (`None` → `Other`).
    pub fn of_genre(genre: Option<&str>) -> Family {
        let Some(genre) = genre else {
            return Family::Other;
        };
        let lower = genre.to_lowercase();
        styles(&lower)
            .find_map(rightmost_family)
            .unwrap_or(Family::Other)
    }
}

/// Family words (lowercase substrings) and their family. A word is matched anywhere in a
/// style (`blackened`, `deathcore`, `grindcore` included); `core` covers metalcore,
/// deathcore, hardcore, grindcore.
const WORDS: [(&str, Family); 31] = [
    ("black", Family::Black),
    ("death", Family::Death),
    ("doom", Family::Doom),
    ("stoner", Family::Doom),
    ("sludge", Family::Doom),
    ("drone", Family::Doom),
    ("thrash", Family::Thrash),
    ("speed", Family::Thrash),
    ("heavy", Family::HeavyPower),
    ("power", Family::HeavyPower),
    ("nwobhm", Family::HeavyPower),
    ("progressive", Family::Progressive),
    ("prog", Family::Progressive),
    ("avant-garde", Family::Progressive),
    ("avantgarde", Family::Progressive),
    ("djent", Family::Progressive),
    ("folk", Family::FolkPagan),
    ("pagan", Family::FolkPagan),
    ("viking", Family::FolkPagan),
    ("celtic", Family::FolkPagan),
    ("medieval", Family::FolkPagan),
    ("gothic", Family::GothicSymphonic),
    ("goth", Family::GothicSymphonic),
    ("symphonic", Family::GothicSymphonic),
    ("grind", Family::GrindCore),
    ("core", Family::GrindCore),
    ("crust", Family::GrindCore),
    ("powerviolence", Family::GrindCore),
    ("mathcore", Family::GrindCore),
    ("noisecore", Family::GrindCore),
    ("crossover", Family::Thrash),
];

/// The styles of a lowercase genre text, in the order written.
fn styles(lower: &str) -> impl Iterator<Item = &str> {
    lower
        .split(['/', ',', ';', '|', '(', ')'])
        .flat_map(|s| s.split(" and "))
        .flat_map(|s| s.split(" & "))
        .flat_map(|s| s.split(" with "))
}

/// The family of the rightmost family word of one style (ties at one position: the
/// longest word, so `powerviolence` beats `power`).
fn rightmost_family(style: &str) -> Option<Family> {
    let mut best: Option<(usize, usize, Family)> = None;
    for (word, family) in WORDS {
        if let Some(at) = style.rfind(word) {
            let better = match best {
                None => true,
                Some((b_at, b_len, _)) => at > b_at || (at == b_at && word.len() > b_len),
            };
            if better {
                best = Some((at, word.len(), family));
            }
        }
    }
    best.map(|(_, _, f)| f)
}

/// How many points of each family (indexed by `Family as usize`).
pub type Mix = [u32; COUNT];

/// Counts of families over ranges of positions of one selection (all points, or a filter's
/// matches): one byte per position and a running total every [`BLOCK`] positions, so a
/// range costs at most two partial blocks (≤ 2 × 63 byte reads) whatever its length.
#[derive(Debug, Default)]
pub struct MixIndex {
    family: Vec<u8>,
    /// `blocks[b]` = counts of positions `0..b * BLOCK`.
    blocks: Vec<Mix>,
}

/// Positions per running total.
pub const BLOCK: usize = 64;

impl MixIndex {
    /// Builds the index over the family of each position, in order.
    pub fn build(family: Vec<u8>) -> MixIndex {
        let mut blocks = Vec::with_capacity(family.len() / BLOCK + 1);
        let mut run: Mix = [0; COUNT];
        for (pos, &f) in family.iter().enumerate() {
            if pos.is_multiple_of(BLOCK) {
                blocks.push(run);
            }
            run[usize::from(f).min(COUNT - 1)] += 1;
        }
        if family.len().is_multiple_of(BLOCK) {
            blocks.push(run);
        }
        MixIndex { family, blocks }
    }

    /// The family of position `pos`.
    #[inline]
    pub fn at(&self, pos: usize) -> u8 {
        self.family.get(pos).copied().unwrap_or(Family::Other as u8)
    }

    /// Counts of positions `0..pos`.
    fn prefix(&self, pos: usize) -> Mix {
        let pos = pos.min(self.family.len());
        let b = pos / BLOCK;
        let mut out = self.blocks.get(b).copied().unwrap_or([0; COUNT]);
        for &f in &self.family[b * BLOCK..pos] {
            out[usize::from(f).min(COUNT - 1)] += 1;
        }
        out
    }

    /// Counts of positions `start..end`.
    pub fn count(&self, start: usize, end: usize) -> Mix {
        let (a, b) = (self.prefix(start), self.prefix(end.max(start)));
        std::array::from_fn(|i| b[i] - a[i])
    }

    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        self.family.len() + self.blocks.len() * std::mem::size_of::<Mix>()
    }
}

/// Parses a `family=` list (`black,doom`) into a mask; an empty list is no constraint (0).
/// The first unknown name is the error.
pub fn parse_mask(raw: &str) -> Result<u16, String> {
    let mut mask = 0u16;
    for name in raw.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match Family::parse(name) {
            Some(f) => mask |= f.bit(),
            None => return Err(name.to_string()),
        }
    }
    Ok(mask)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_documented_examples() {
        let cases = [
            ("Black Metal", Family::Black),
            ("Symphonic Black Metal", Family::Black),
            ("Blackened Death Metal", Family::Death),
            ("Melodic Death Metal", Family::Death),
            ("Black/Death Metal", Family::Black),
            ("Death/Black Metal", Family::Death),
            ("Doom/Stoner Metal", Family::Doom),
            ("Funeral Doom Metal", Family::Doom),
            ("Sludge Metal", Family::Doom),
            ("Thrash Metal", Family::Thrash),
            ("Speed/Thrash Metal", Family::Thrash),
            ("Heavy Metal", Family::HeavyPower),
            ("Heavy/Power Metal", Family::HeavyPower),
            ("Symphonic Power Metal", Family::HeavyPower),
            ("NWOBHM", Family::HeavyPower),
            ("Progressive Metal", Family::Progressive),
            ("Progressive Death Metal", Family::Death),
            ("Avant-garde Metal", Family::Progressive),
            ("Folk Metal", Family::FolkPagan),
            ("Pagan Black Metal", Family::Black),
            ("Viking Metal", Family::FolkPagan),
            ("Gothic Metal", Family::GothicSymphonic),
            ("Symphonic Metal", Family::GothicSymphonic),
            ("Gothic/Doom Metal", Family::GothicSymphonic),
            ("Grindcore", Family::GrindCore),
            ("Deathcore", Family::GrindCore),
            ("Metalcore", Family::GrindCore),
            ("Goregrind", Family::GrindCore),
            ("Powerviolence", Family::GrindCore),
            ("Hard Rock/Heavy Metal", Family::HeavyPower),
            ("Death Metal (early); Thrash Metal (later)", Family::Death),
            ("Industrial Metal", Family::Other),
            ("Nu-Metal", Family::Other),
            ("", Family::Other),
            ("Death and Roll", Family::Death),
        ];
        for (genre, want) in cases {
            assert_eq!(Family::of_genre(Some(genre)), want, "{genre}");
        }
        assert_eq!(Family::of_genre(None), Family::Other);
        assert_eq!(Family::of_genre(Some("BLACK METAL")), Family::Black);
    }

    #[test]
    fn names_round_trip_and_masks() {
        for f in Family::ALL {
            assert_eq!(Family::parse(f.name()), Some(f));
            assert_eq!(Family::parse(&f.name().to_uppercase()), Some(f));
            assert_eq!(Family::from_index(f as u8), f);
        }
        assert_eq!(parse_mask("black, doom"), Ok(0b101));
        assert_eq!(parse_mask(""), Ok(0));
        assert_eq!(parse_mask(",,"), Ok(0));
        assert_eq!(parse_mask("black,polka"), Err("polka".to_string()));
    }

    proptest! {
        /// A range's counts equal a plain count of its positions.
        #[test]
        fn mix_counts_equal_a_plain_count(
            fams in proptest::collection::vec(0u8..10, 0..400),
            a in 0usize..420,
            b in 0usize..420,
        ) {
            let ix = MixIndex::build(fams.clone());
            let (start, end) = (a.min(b).min(fams.len()), a.max(b).min(fams.len()));
            let mut want: Mix = [0; COUNT];
            for &f in &fams[start..end] {
                want[usize::from(f)] += 1;
            }
            prop_assert_eq!(ix.count(start, end), want);
        }
    }
}
