//! GPU failures as one-line errors. Burn and wgpu report an out-of-memory GPU, a lost
//! device or a refused operation by panicking deep inside a training step; while a GPU
//! is in use this module turns such a panic into `error: backend B on ADAPTER: ...`
//! naming the backend, the adapter and what to do, instead of a backtrace. Panics on
//! the CPU backends are bugs and keep Rust's usual report.

use std::any::Any;
use std::panic;
use std::sync::Mutex;

use crate::device::backend::gpu_in_use;

/// The message of the last panic while a GPU was in use.
static GPU_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Installs the panic hook: silent (message kept) while a GPU is in use, Rust's
/// default report otherwise.
pub fn install_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if gpu_in_use().is_some() {
            let text = payload_text(info.payload());
            *GPU_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
        } else {
            default(info);
        }
    }));
}

/// The one-line error for a panic caught while a GPU was in use, or None when the
/// panic happened without a GPU (already reported by the default hook).
pub fn caught_panic_message() -> Option<String> {
    let gpu = gpu_in_use()?;
    let text = GPU_PANIC
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .unwrap_or_default();
    Some(describe(gpu, &text))
}

fn payload_text(payload: &dyn Any) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Classifies a GPU panic message into one line naming `gpu` (backend and adapter).
pub fn describe(gpu: &str, panic_text: &str) -> String {
    let lower = panic_text.to_lowercase();
    let squashed: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    let detail = panic_text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no details");
    if squashed.contains("outofmemory") {
        format!(
            "backend {gpu}: the GPU ran out of memory; use fewer --envs, a smaller batch or --backend flex ({detail})"
        )
    } else if lower.contains("lost") || lower.contains("poison") {
        format!(
            "backend {gpu}: the GPU device was lost (driver reset, timeout or removal); rerun, or use --backend flex ({detail})"
        )
    } else if lower.contains("exceeds") || lower.contains("too large") || lower.contains("limit") {
        format!(
            "backend {gpu}: the request exceeds the adapter's limits; use fewer --envs or a smaller batch ({detail})"
        )
    } else {
        format!("backend {gpu}: the GPU failed: {detail}")
    }
}

#[cfg(test)]
mod tests {
    use super::describe;

    const GPU: &str = "vulkan on NVIDIA H100 80GB HBM3";

    #[test]
    fn out_of_memory_names_the_backend_and_the_adapter() {
        let text = describe(
            GPU,
            "Error while reading data: use `try_into_data`: Launch(OutOfMemory { reason: \"...\" })\nbacktrace",
        );
        assert!(text.starts_with("backend vulkan on NVIDIA H100"), "{text}");
        assert!(text.contains("ran out of memory"), "{text}");
        assert!(!text.contains('\n'), "{text}");
    }

    #[test]
    fn a_lost_device_and_other_failures_are_one_line() {
        let lost = describe(
            GPU,
            "The device was poisoned during launch\nCaused by: Lost",
        );
        assert!(lost.contains("device was lost"), "{lost}");
        let limit = describe(
            GPU,
            "wgpu error: Validation Error\n\nCaused by:\n  Buffer size 9000000000 exceeds the limit",
        );
        assert!(limit.contains("exceeds the adapter's limits"), "{limit}");
        assert!(limit.contains("wgpu error: Validation Error"), "{limit}");
        let other = describe(GPU, "\nsomething odd\nmore");
        assert_eq!(
            other,
            format!("backend {GPU}: the GPU failed: something odd")
        );
    }
}
