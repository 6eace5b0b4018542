//! `Accept-Encoding` negotiation between the two codings kept (RFC 9110 §12.5.3): each
//! listed coding with its weight `q` (1 when absent, 0 = not acceptable), `*` for every
//! coding not listed, names in any case, `x-gzip` as `gzip`. An entry that cannot be read
//! (a weight that is not a number from 0 to 1) is left out, as if the client had not sent
//! it.

use axum::http::{HeaderMap, HeaderValue, header};

/// A content coding of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Coding {
    /// The body as written.
    Identity,
    /// gzip (RFC 1952).
    Gzip,
    /// Brotli (RFC 7932).
    Brotli,
}

impl Coding {
    /// The `Content-Encoding` value, `None` for the body as written.
    pub fn header_value(self) -> Option<HeaderValue> {
        match self {
            Coding::Identity => None,
            Coding::Gzip => Some(HeaderValue::from_static("gzip")),
            Coding::Brotli => Some(HeaderValue::from_static("br")),
        }
    }

    /// The coding to answer `headers` with: of brotli and gzip the one with the higher
    /// weight (brotli on a tie: smaller answers), the body as written when neither is
    /// acceptable or the request has no `Accept-Encoding`.
    pub fn preferred(headers: &HeaderMap) -> Coding {
        let mut weights = Weights::default();
        for value in headers.get_all(header::ACCEPT_ENCODING) {
            if let Ok(text) = value.to_str() {
                weights.read(text);
            }
        }
        weights.choose()
    }
}

/// The weights read for brotli, gzip and `*`, in thousandths (RFC 9110 allows three
/// decimals); `None` when not listed.
#[derive(Debug, Default)]
struct Weights {
    brotli: Option<u16>,
    gzip: Option<u16>,
    any: Option<u16>,
}

impl Weights {
    fn read(&mut self, text: &str) {
        for entry in text.split(',') {
            let mut parts = entry.split(';');
            let name = parts.next().unwrap_or("").trim();
            let Some(q) = weight(parts) else { continue };
            let slot = if name.eq_ignore_ascii_case("br") {
                &mut self.brotli
            } else if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
                &mut self.gzip
            } else if name == "*" {
                &mut self.any
            } else {
                continue;
            };
            // Listed twice: the higher weight (a client does not list a coding twice on
            // purpose; the generous reading never refuses a coding it named).
            *slot = Some(slot.map_or(q, |old| old.max(q)));
        }
    }

    fn choose(&self) -> Coding {
        let brotli = self.brotli.or(self.any).unwrap_or(0);
        let gzip = self.gzip.or(self.any).unwrap_or(0);
        match (brotli, gzip) {
            (0, 0) => Coding::Identity,
            (b, g) if b >= g => Coding::Brotli,
            _ => Coding::Gzip,
        }
    }
}

/// The weight of an entry from its parameters: `q=` (any case) in thousandths, 1000 when
/// absent; `None` when unreadable. Other parameters are ignored.
fn weight<'a>(params: impl Iterator<Item = &'a str>) -> Option<u16> {
    let mut q = 1000;
    for p in params {
        let Some((key, value)) = p.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("q") {
            q = thousandths(value.trim())?;
        }
    }
    Some(q)
}

/// RFC 9110's `qvalue`: `0`, `0.ddd`, `1` or `1.000` (up to three decimals).
fn thousandths(v: &str) -> Option<u16> {
    let (whole, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac_value = format!("{frac:0<3}").parse::<u16>().ok()?;
    match whole {
        "0" => Some(frac_value),
        "1" if frac_value == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pick(values: &[&str]) -> Coding {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        }
        Coding::preferred(&h)
    }

    #[test]
    fn what_browsers_send_gets_brotli() {
        assert_eq!(pick(&["gzip, deflate, br, zstd"]), Coding::Brotli);
        assert_eq!(pick(&["gzip, deflate, br"]), Coding::Brotli);
        assert_eq!(pick(&["gzip, deflate"]), Coding::Gzip);
    }

    #[test]
    fn no_header_or_nothing_known_is_the_body_as_written() {
        assert_eq!(pick(&[]), Coding::Identity);
        assert_eq!(pick(&["identity"]), Coding::Identity);
        assert_eq!(pick(&["deflate, zstd"]), Coding::Identity);
        assert_eq!(pick(&[""]), Coding::Identity);
    }

    #[test]
    fn weights_decide_and_zero_refuses() {
        assert_eq!(pick(&["br;q=0.5, gzip;q=0.8"]), Coding::Gzip);
        assert_eq!(pick(&["br;q=1.0, gzip;q=0.5"]), Coding::Brotli);
        assert_eq!(pick(&["br;q=0, gzip"]), Coding::Gzip);
        assert_eq!(pick(&["br;q=0, gzip;q=0"]), Coding::Identity);
        assert_eq!(pick(&["gzip;q=0.001"]), Coding::Gzip);
        assert_eq!(pick(&["br; Q=0.000, gzip"]), Coding::Gzip);
    }

    #[test]
    fn the_star_covers_what_is_not_listed() {
        assert_eq!(pick(&["*"]), Coding::Brotli);
        assert_eq!(pick(&["*;q=0.5, br;q=0"]), Coding::Gzip);
        assert_eq!(pick(&["*;q=0"]), Coding::Identity);
        assert_eq!(pick(&["gzip, *;q=0"]), Coding::Gzip);
    }

    #[test]
    fn names_in_any_case_and_x_gzip() {
        assert_eq!(pick(&["BR"]), Coding::Brotli);
        assert_eq!(pick(&["X-GZIP"]), Coding::Gzip);
        assert_eq!(pick(&["  Gzip ;  q=0.9 "]), Coding::Gzip);
    }

    #[test]
    fn several_headers_are_one_list() {
        assert_eq!(pick(&["gzip;q=0.5", "br;q=0.9"]), Coding::Brotli);
        assert_eq!(pick(&["deflate", "gzip"]), Coding::Gzip);
    }

    #[test]
    fn an_unreadable_weight_drops_its_entry_only() {
        assert_eq!(pick(&["br;q=2, gzip"]), Coding::Gzip);
        assert_eq!(pick(&["br;q=abc, gzip;q=0.5"]), Coding::Gzip);
        assert_eq!(pick(&["br;q=0.1234"]), Coding::Identity);
        assert_eq!(pick(&["br;q=-1"]), Coding::Identity);
        assert_eq!(pick(&["br;q=1.5"]), Coding::Identity);
    }

    #[test]
    fn qvalues_read_as_thousandths() {
        assert_eq!(thousandths("0"), Some(0));
        assert_eq!(thousandths("0.5"), Some(500));
        assert_eq!(thousandths("0.05"), Some(50));
        assert_eq!(thousandths("1"), Some(1000));
        assert_eq!(thousandths("1.000"), Some(1000));
        assert_eq!(thousandths("1.001"), None);
        assert_eq!(thousandths(""), None);
        assert_eq!(thousandths("0.+1"), None);
    }

    proptest! {
        /// Any header text: an answer, never a panic; only a coding the text names (by
        /// name or `*`) is chosen.
        #[test]
        fn any_text_chooses_only_a_named_coding(text in "[ -~]{0,80}") {
            let Ok(v) = HeaderValue::from_str(&text) else { return Ok(()) };
            let mut h = HeaderMap::new();
            h.insert(header::ACCEPT_ENCODING, v);
            let lower = text.to_ascii_lowercase();
            match Coding::preferred(&h) {
                Coding::Identity => {}
                Coding::Brotli => prop_assert!(lower.contains("br") || lower.contains('*')),
                Coding::Gzip => prop_assert!(lower.contains("gzip") || lower.contains('*')),
            }
        }

        /// Two listed codings with weights: the heavier wins, brotli on a tie, neither
        /// when both are zero.
        #[test]
        fn the_heavier_weight_wins(b in 0u16..=1000, g in 0u16..=1000, br_first: bool) {
            let (bq, gq) = (format!("br;q={}", q(b)), format!("gzip;q={}", q(g)));
            let text = if br_first { format!("{bq}, {gq}") } else { format!("{gq}, {bq}") };
            let want = match (b, g) {
                (0, 0) => Coding::Identity,
                _ if b >= g => Coding::Brotli,
                _ => Coding::Gzip,
            };
            prop_assert_eq!(pick(&[&text]), want);
        }
    }

    fn q(thousandths: u16) -> String {
        if thousandths == 1000 {
            "1".to_string()
        } else {
            format!("0.{thousandths:03}")
        }
    }
}
