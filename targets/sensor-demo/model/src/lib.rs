//! The simulated sensors of the demo: every sample is a formula of its index
//! `i` (0, 1, 2, … across the whole stream), so that the firmware and every
//! checker compute exactly the same values (`read.py` recomputes them in
//! Python from the same formulas).
//!
//! Every channel value is a small multiple of a power of two, so it is
//! exact in `f32` and computed identically by `f32` and `f64` arithmetic.
//!
//! With `tri(i, p) = i mod p` when that is below `p/2`, else `p - (i mod p)`
//! (a triangle wave from 0 to `p/2`), and `noise(i) = (i * 2654435761 mod
//! 2^32) >> 16 mod 256` (Knuth's multiplicative hash: 0..=255):
//!
//! | column | unit | value |
//! |---|---|---|
//! | `time` | ms since the epoch, UTC | `START_MS + PERIOD_MS * i` (10 Hz) |
//! | `temperature` | °C | `21 + tri(i, 80) / 16 + (noise(i) mod 8) / 128` |
//! | `humidity` | % RH | `45 + ((i / 10) mod 40) / 4`; null when the status is `fault` |
//! | `pressure` | hPa | `1007 + tri(i, 200) / 8` |
//! | `vibration` | g | `noise(i) / 512` |
//! | `status` | label | `fault` when `i mod 250 = 249`, else `vibration` when `noise(i) >= 240`, else `warm` when `tri(i, 80) > 32`, else `ok` |

#![no_std]

/// Samples per record batch.
pub const BATCH_ROWS: u32 = 100;
/// Record batches in the stream.
pub const BATCHES: u32 = 10;
/// Time of sample 0: 2026-01-01T00:00:00Z, in milliseconds since the epoch.
pub const START_MS: i64 = 1_767_225_600_000;
/// Sampling period in milliseconds.
pub const PERIOD_MS: i64 = 100;
/// The dictionary of the `status` column, in key order.
pub const STATUS_LABELS: [&str; 4] = ["ok", "warm", "vibration", "fault"];
/// Key of `fault` in [`STATUS_LABELS`].
pub const FAULT: u8 = 3;

/// One sample of every sensor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Milliseconds since the epoch (UTC).
    pub time_ms: i64,
    /// °C.
    pub temperature: f32,
    /// % relative humidity; `None` while the sensor reports a fault.
    pub humidity: Option<f32>,
    /// hPa.
    pub pressure: f32,
    /// g (RMS).
    pub vibration: f32,
    /// Index into [`STATUS_LABELS`].
    pub status: u8,
}

/// A triangle wave: 0 up to `p / 2` and back, period `p`.
pub const fn tri(i: u32, p: u32) -> u32 {
    let x = i % p;
    if x < p / 2 {
        x
    } else {
        p - x
    }
}

/// Deterministic "noise" in 0..=255.
pub const fn noise(i: u32) -> u32 {
    (i.wrapping_mul(2_654_435_761) >> 16) & 0xFF
}

/// Sample number `i` of the stream.
pub fn sample(i: u32) -> Sample {
    let t = tri(i, 80);
    let n = noise(i);
    let status = if i % 250 == 249 {
        FAULT
    } else if n >= 240 {
        2
    } else if t > 32 {
        1
    } else {
        0
    };
    Sample {
        time_ms: START_MS + PERIOD_MS * i as i64,
        temperature: 21.0 + t as f32 / 16.0 + (n % 8) as f32 / 128.0,
        humidity: (status != FAULT).then(|| 45.0 + ((i / 10) % 40) as f32 / 4.0),
        pressure: 1007.0 + tri(i, 200) as f32 / 8.0,
        vibration: n as f32 / 512.0,
        status,
    }
}
