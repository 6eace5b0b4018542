//! Compressing a body once, for keeping: brotli at quality 4 and gzip at level 6. A kept
//! body is compressed once and sent many times, but the first request of a view waits for
//! it, so the levels are the fast ones that compress well rather than the slowest best: on
//! the 72 KB z6 map answer brotli 4 gives 9,851 bytes in 1–2 ms, brotli 11 8,619 bytes in
//! 126–228 ms (`cargo bench -p bandmap-api --bench encoded`, docs/performance.md "What a
//! browser gets"); the same 9,851 bytes the server's `CompressionLayer` sent per request.

use super::accept::Coding;
use std::io::Write;

/// Brotli quality (0–11).
const BROTLI_QUALITY: u32 = 4;
/// Brotli window: 2^18 = 256 KB, the largest body the map keeps; a larger body compresses
/// a little less well, and the encoder's memory stays bounded by the window.
const BROTLI_WINDOW_BITS: u32 = 18;
/// gzip level (0–9).
const GZIP_LEVEL: u32 = 6;

/// `body` in `coding` (a copy for [`Coding::Identity`]).
pub fn encode(body: &[u8], coding: Coding) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len() / 4 + 64);
    match coding {
        Coding::Identity => out.extend_from_slice(body),
        Coding::Gzip => {
            let mut w = flate2::write::GzEncoder::new(out, flate2::Compression::new(GZIP_LEVEL));
            w.write_all(body)?;
            out = w.finish()?;
        }
        Coding::Brotli => {
            let mut w =
                brotli::CompressorWriter::new(out, 4096, BROTLI_QUALITY, BROTLI_WINDOW_BITS);
            w.write_all(body)?;
            // Finishes the stream (into a `Vec`, which cannot fail).
            out = w.into_inner();
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::Read;

    fn decode(data: &[u8], coding: Coding) -> Vec<u8> {
        let mut out = Vec::new();
        match coding {
            Coding::Identity => out.extend_from_slice(data),
            Coding::Gzip => {
                flate2::read::GzDecoder::new(data)
                    .read_to_end(&mut out)
                    .unwrap();
            }
            Coding::Brotli => {
                brotli::Decompressor::new(data, 4096)
                    .read_to_end(&mut out)
                    .unwrap();
            }
        }
        out
    }

    fn geojson(features: usize) -> Vec<u8> {
        let one = r#"{"type":"Feature","geometry":{"type":"Point","coordinates":[10.75,59.91]},"properties":{"cluster":true,"count":12,"expansion_zoom":7}}"#;
        let list = vec![one; features].join(",");
        format!(r#"{{"type":"FeatureCollection","features":[{list}]}}"#).into_bytes()
    }

    #[test]
    fn a_map_answer_shrinks_and_comes_back_whole() {
        let body = geojson(400);
        for coding in [Coding::Gzip, Coding::Brotli] {
            let packed = encode(&body, coding).unwrap();
            assert!(
                packed.len() * 10 < body.len(),
                "{coding:?}: {} bytes",
                packed.len()
            );
            assert_eq!(decode(&packed, coding), body, "{coding:?}");
        }
        assert_eq!(encode(&body, Coding::Identity).unwrap(), body);
    }

    #[test]
    fn magic_bytes_say_the_coding() {
        let gz = encode(b"{}", Coding::Gzip).unwrap();
        assert_eq!(&gz[..2], &[0x1f, 0x8b]);
        assert_eq!(
            decode(&encode(b"", Coding::Brotli).unwrap(), Coding::Brotli),
            b""
        );
    }

    proptest! {
        /// Any bytes, any size up to past the brotli window: decoding gives them back.
        #[test]
        fn every_body_round_trips(body in proptest::collection::vec(any::<u8>(), 0..4096),
                                  repeat in 1usize..100) {
            let body = body.repeat(repeat);
            for coding in [Coding::Gzip, Coding::Brotli] {
                let packed = encode(&body, coding).unwrap();
                prop_assert_eq!(decode(&packed, coding), body.clone());
            }
        }
    }
}
