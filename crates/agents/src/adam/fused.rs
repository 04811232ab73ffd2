//! The host-memory Adam step: one pass over a tensor's values, compiled for the
//! widest vector unit the CPU has (the same IEEE operations in the same order at every
//! width, so every width gives the same bits).

use super::{BETA_1, BETA_2, StepScalars};

/// ALGO: `m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
/// p -= lr * (m * c) / (sqrt(v) + eps')`, element by element.
#[inline(always)]
fn step_values(s: &StepScalars, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
    let (f1, f2) = (1.0 - BETA_1, 1.0 - BETA_2);
    for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
        *m = *m * BETA_1 + g * f1;
        *v = *v * BETA_2 + (g * g) * f2;
        *p -= (*m * s.correction) / (v.sqrt() + s.epsilon) * s.lr;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn step_avx512(s: &StepScalars, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
    step_values(s, p, g, m, v)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn step_avx2(s: &StepScalars, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
    step_values(s, p, g, m, v)
}

/// One Adam step of the values `p` with gradient `g` and moments `m`, `v`.
pub(super) fn adam_step(s: &StepScalars, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above).
            return unsafe { step_avx512(s, p, g, m, v) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { step_avx2(s, p, g, m, v) };
        }
    }
    step_values(s, p, g, m, v)
}
