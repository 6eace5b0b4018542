//! The clustering grid: Web Mercator cells of 1/4 tile (64 px) per zoom, addressed by
//! integer cell coordinates at the finest level and their Morton (Z-order) code.
//!
//! Level `g` has `2^g × 2^g` cells over the Mercator square; zoom `z` clusters at level
//! `z + 2`. Coordinates are computed once at level [`MAX_LEVEL`]; a coarser cell is a bit
//! shift of it, so cells nest exactly. The float operations are written in the same order
//! as the reference SQL (`reference.sql`) so both give the same integers.

/// Finest level: zoom 16 + 2.
pub const MAX_LEVEL: u32 = 18;
/// Cells per axis at the finest level.
pub const SIDE: u64 = 1 << MAX_LEVEL;
/// Levels between a zoom and its grid level (4 cells per 256-px tile side).
pub const LEVELS_PER_TILE: u32 = 2;
/// Web Mercator latitude limit.
pub const MAX_LAT: f64 = 85.051_128_779_806_6;
/// Degrees to radians, written out so SQL uses the same double.
pub const RAD_PER_DEG: f64 = 0.017_453_292_519_943_295;

/// Finest-level column of a longitude: `floor((lon + 180) / 360 × 2^18)`, clamped.
pub fn cell_x(lon: f64) -> u32 {
    let x = (lon + 180.0) / 360.0;
    clamp_cell((x * SIDE as f64).floor())
}

/// Finest-level row of a latitude (0 at the north edge), clamped to the Mercator square.
pub fn cell_y(lat: f64) -> u32 {
    let r = lat.clamp(-MAX_LAT, MAX_LAT) * RAD_PER_DEG;
    let y = (1.0 - (r.tan() + 1.0 / r.cos()).ln() / std::f64::consts::PI) / 2.0;
    clamp_cell((y * SIDE as f64).floor())
}

fn clamp_cell(v: f64) -> u32 {
    if v.is_nan() || v < 0.0 {
        0
    } else if v >= (SIDE - 1) as f64 {
        (SIDE - 1) as u32
    } else {
        v as u32
    }
}

/// Interleaves finest-level `(cx, cy)` into a 36-bit Morton code (x bit above y bit).
pub fn morton(cx: u32, cy: u32) -> u64 {
    spread(cx) << 1 | spread(cy)
}

fn spread(v: u32) -> u64 {
    let mut x = u64::from(v) & 0xFFFF_FFFF;
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

fn compact(v: u64) -> u32 {
    let mut x = v & 0x5555_5555_5555_5555;
    x = (x | x >> 1) & 0x3333_3333_3333_3333;
    x = (x | x >> 2) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x >> 4) & 0x00FF_00FF_00FF_00FF;
    x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF;
    x = (x | x >> 16) & 0x0000_0000_FFFF_FFFF;
    x as u32
}

/// The key of the level-`level` cell holding finest Morton code `m`.
pub fn key_at(m: u64, level: u32) -> u64 {
    m >> (2 * (MAX_LEVEL - level))
}

/// Cell key at `level` of level-`level` coordinates.
pub fn key_of(cx: u32, cy: u32) -> u64 {
    morton(cx, cy)
}

/// Level coordinates of a cell key.
pub fn decode(key: u64) -> (u32, u32) {
    (compact(key >> 1), compact(key))
}

/// The grid level of a zoom ≤ 16.
pub fn level_of_zoom(zoom: u8) -> u32 {
    (u32::from(zoom) + LEVELS_PER_TILE).min(MAX_LEVEL)
}

/// Smallest zoom (≤ 16) at which points with finest codes `first` and `last` (the extremes
/// of a Morton-sorted set) fall in different cells; 17 when they never do.
pub fn split_zoom(first: u64, last: u64) -> u8 {
    for zoom in 0u8..=16 {
        let level = level_of_zoom(zoom);
        if key_at(first, level) != key_at(last, level) {
            return zoom;
        }
    }
    17
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_round_trip_and_nesting() {
        for (x, y) in [
            (0, 0),
            (1, 0),
            (0, 1),
            (262_143, 262_143),
            (12_345, 200_001),
        ] {
            let m = morton(x, y);
            assert_eq!(decode(m), (x, y));
            assert_eq!(decode(key_at(m, 5)), (x >> 13, y >> 13));
        }
    }

    #[test]
    fn projection_edges() {
        assert_eq!(cell_x(-180.0), 0);
        assert_eq!(cell_x(180.0), 262_143);
        assert_eq!(cell_x(0.0), 131_072);
        assert_eq!(cell_y(90.0), 0);
        assert_eq!(cell_y(-90.0), 262_143);
        assert_eq!(cell_y(0.0), 131_072);
        assert!(cell_y(60.0) < cell_y(50.0));
    }

    #[test]
    fn split_zoom_rules() {
        let a = morton(cell_x(10.0), cell_y(50.0));
        assert_eq!(split_zoom(a, a), 17);
        let b = morton(cell_x(-10.0), cell_y(50.0));
        assert_eq!(split_zoom(b, a), 0);
    }
}
