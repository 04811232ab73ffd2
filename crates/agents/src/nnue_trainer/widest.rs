//! Runs a loop compiled for the widest vector unit the CPU has (AVX-512F, AVX2, or
//! the build's baseline): element-by-element float work gives the same bits at every
//! width (no fused multiply-add, no reordered sums), only sooner.

/// `work()` compiled for this CPU's widest vector unit. `work` must be
/// `#[inline(always)]`-able (a closure that only calls inlined code), or it runs at
/// the baseline width.
#[inline(always)]
pub(super) fn widest<R>(work: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn avx512<R>(work: impl FnOnce() -> R) -> R {
            work()
        }
        #[target_feature(enable = "avx2")]
        fn avx2<R>(work: impl FnOnce() -> R) -> R {
            work()
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above).
            return unsafe { avx512(work) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { avx2(work) };
        }
    }
    work()
}
