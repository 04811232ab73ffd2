//! The one place a Burn backend is chosen: `--backend` becomes a `Device`.

use std::sync::OnceLock;

use anyhow::{Result, bail};
use burn::tensor::Device;
use serde::{Deserialize, Serialize};

/// The GPU this process trains on, e.g. `vulkan on NVIDIA H100 80GB HBM3`; set when
/// a wgpu device is created, read by the panic handler to name it in errors.
static GPU_IN_USE: OnceLock<String> = OnceLock::new();

/// The backend and adapter of the GPU in use, once one was created.
pub fn gpu_in_use() -> Option<&'static str> {
    GPU_IN_USE.get().map(String::as_str)
}

/// A Burn backend selectable on the command line and in configs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendChoice {
    /// burn-flex, pure-Rust CPU (default).
    Flex,
    /// burn-ndarray, pure-Rust CPU (deprecated upstream, kept selectable).
    Ndarray,
    /// wgpu on the best GPU adapter the machine offers (Vulkan, Metal or DX12).
    Wgpu,
    /// wgpu pinned to Vulkan.
    Vulkan,
}

impl BackendChoice {
    /// The name used in files and messages.
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Flex => "flex",
            BackendChoice::Ndarray => "ndarray",
            BackendChoice::Wgpu => "wgpu",
            BackendChoice::Vulkan => "vulkan",
        }
    }

    /// Builds the device; a missing GPU adapter is an error naming the backend.
    pub fn device(self) -> Result<Device> {
        match self {
            BackendChoice::Flex => Ok(Device::flex()),
            #[allow(deprecated)] // kept selectable on purpose, see the variant's doc
            BackendChoice::Ndarray => Ok(Device::ndarray()),
            BackendChoice::Wgpu | BackendChoice::Vulkan => gpu_device(self),
        }
    }
}

/// The GPU devices made so far, one a backend: cubecl registers a runtime once a
/// process, so a second `init` of the same backend fails where a clone serves.
#[cfg(feature = "wgpu")]
static GPU_DEVICES: std::sync::Mutex<Vec<(BackendChoice, Device)>> =
    std::sync::Mutex::new(Vec::new());

#[cfg(feature = "wgpu")]
fn gpu_device(choice: BackendChoice) -> Result<Device> {
    let mut made = GPU_DEVICES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, device)) = made.iter().find(|(c, _)| *c == choice) {
        return Ok(device.clone());
    }
    let device = new_gpu_device(choice)?;
    made.push((choice, device.clone()));
    Ok(device)
}

#[cfg(feature = "wgpu")]
fn new_gpu_device(choice: BackendChoice) -> Result<Device> {
    use burn::tensor::wgpu::WgpuBackend;
    let api = match choice {
        BackendChoice::Vulkan => WgpuBackend::Vulkan,
        _ => WgpuBackend::Auto,
    };
    match Device::wgpu_options().graphics_api(api).init() {
        Ok(device) => {
            let adapter = device
                .identity()
                .map_or_else(|| "an unnamed adapter".to_string(), |id| id.name);
            let _ = GPU_IN_USE.set(format!("{} on {adapter}", choice.name()));
            Ok(device)
        }
        Err(e) => bail!(
            "backend {}: no usable GPU adapter ({}); use --backend flex to train on the CPU",
            choice.name(),
            e.to_string().lines().next().unwrap_or("unknown error")
        ),
    }
}

#[cfg(not(feature = "wgpu"))]
fn gpu_device(choice: BackendChoice) -> Result<Device> {
    bail!(
        "backend {}: this burnmate was built without the `wgpu` feature; rebuild with default features",
        choice.name()
    )
}
