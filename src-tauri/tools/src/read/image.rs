//! Images: returned as an image content block, downscaled when large.
//!
//! An image passes through unchanged when it fits in
//! [`MAX_DIMENSION`]² pixels and [`MAX_BYTES`]; otherwise it is decoded,
//! resized to fit (aspect ratio kept) and re-encoded — PNG for images that
//! may have transparency, JPEG otherwise — lowering JPEG quality until the
//! bytes fit.

use std::io::Cursor;
use std::path::Path;

use base64::Engine as _;
use gatehouse_core::ToolError;
use gatehouse_protocol::event::{ContentBlock, ImageSource};
use image::{DynamicImage, GenericImageView, ImageFormat, ImageReader};
use serde::Serialize;

use crate::file_state::FileStateCache;
use crate::paths;

/// Longest side sent to the model, in pixels.
pub const MAX_DIMENSION: u32 = 2000;
/// Largest encoded image sent to the model (3.75 MB of base64 ≈ 2.8 MB).
pub const MAX_BYTES: usize = 2_800_000;
/// Images larger than this on disk are refused outright.
pub const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;

/// An image for the model.
#[derive(Debug, Clone, Serialize)]
pub struct ImageOutput {
    /// The canonical path read.
    pub file_path: String,
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The (possibly downscaled) image, base64.
    pub data: String,
    /// Size on disk in bytes.
    pub original_size: u64,
    /// Dimensions of the file, when known.
    pub original_dimensions: Option<(u32, u32)>,
    /// Dimensions sent, when downscaled.
    pub dimensions: Option<(u32, u32)>,
    /// Whether the image was downscaled or re-encoded.
    pub resized: bool,
}

impl ImageOutput {
    /// The tool_result content: the image and a one-line caption.
    pub fn blocks(&self) -> Vec<ContentBlock> {
        let mut caption = format!("Image {} ({} bytes", self.file_path, self.original_size);
        if let Some((w, h)) = self.original_dimensions {
            caption.push_str(&format!(", {w}×{h}"));
        }
        if let (true, Some((w, h))) = (self.resized, self.dimensions) {
            caption.push_str(&format!(", downscaled to {w}×{h}"));
        }
        caption.push(')');
        vec![
            ContentBlock::Image {
                source: ImageSource {
                    kind: "base64".into(),
                    media_type: self.media_type.clone(),
                    data: self.data.clone(),
                },
            },
            ContentBlock::Text { text: caption },
        ]
    }
}

fn media_type(format: ImageFormat) -> Option<&'static str> {
    match format {
        ImageFormat::Png => Some("image/png"),
        ImageFormat::Jpeg => Some("image/jpeg"),
        ImageFormat::Gif => Some("image/gif"),
        ImageFormat::WebP => Some("image/webp"),
        _ => None,
    }
}

fn encode(img: &DynamicImage, png: bool, quality: u8) -> Result<Vec<u8>, image::ImageError> {
    let mut out = Cursor::new(Vec::new());
    if png {
        img.write_to(&mut out, ImageFormat::Png)?;
    } else {
        let rgb = DynamicImage::ImageRgb8(img.to_rgb8());
        let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
        rgb.write_with_encoder(encoder)?;
    }
    Ok(out.into_inner())
}

/// Reads and, when needed, downscales an image; records the read.
pub fn read_image(
    state: &FileStateCache,
    path: &Path,
    meta: &std::fs::Metadata,
) -> Result<ImageOutput, ToolError> {
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolError::failed(format!(
            "{} is {} bytes; images over {MAX_FILE_BYTES} bytes are not read",
            path.display(),
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| paths::io_error("read", path, e))?;
    let output = image_from_bytes(&path.display().to_string(), &bytes)?;
    state.record_full(path, meta, &bytes);
    Ok(output)
}

/// An image for the model from bytes already in memory (a file's, or a
/// page WebFetch downloaded); `label` names it in errors and the caption.
pub fn image_from_bytes(label: &str, bytes: &[u8]) -> Result<ImageOutput, ToolError> {
    let bad =
        |e: &dyn std::fmt::Display| ToolError::failed(format!("cannot read image {label}: {e}"));
    let format = image::guess_format(bytes).map_err(|e| bad(&e))?;
    let Some(mime) = media_type(format) else {
        return Err(bad(&format!("unsupported image format {format:?}")));
    };
    let dims = ImageReader::with_format(Cursor::new(bytes), format)
        .into_dimensions()
        .ok();
    let fits = dims.is_some_and(|(w, h)| w <= MAX_DIMENSION && h <= MAX_DIMENSION);
    let (data, media, sent, resized) = if fits && bytes.len() <= MAX_BYTES {
        (bytes.to_vec(), mime.to_owned(), dims, false)
    } else {
        let img = image::load_from_memory_with_format(bytes, format).map_err(|e| bad(&e))?;
        let img = if img.width() > MAX_DIMENSION || img.height() > MAX_DIMENSION {
            img.resize(
                MAX_DIMENSION,
                MAX_DIMENSION,
                image::imageops::FilterType::Triangle,
            )
        } else {
            img
        };
        let png = format == ImageFormat::Png && img.color().has_alpha();
        let mut encoded = encode(&img, png, 85).map_err(|e| bad(&e))?;
        let mut quality = 75;
        let mut current = img;
        while encoded.len() > MAX_BYTES {
            if quality >= 40 {
                encoded = encode(&current, false, quality).map_err(|e| bad(&e))?;
                quality -= 15;
            } else {
                let (w, h) = current.dimensions();
                if w < 64 || h < 64 {
                    break;
                }
                current = current.resize(w / 2, h / 2, image::imageops::FilterType::Triangle);
                encoded = encode(&current, false, 60).map_err(|e| bad(&e))?;
            }
        }
        let is_png = encoded.starts_with(b"\x89PNG");
        let media = if is_png { "image/png" } else { "image/jpeg" };
        (encoded, media.to_owned(), Some(current.dimensions()), true)
    };
    Ok(ImageOutput {
        file_path: label.to_owned(),
        media_type: media,
        data: base64::engine::general_purpose::STANDARD.encode(&data),
        original_size: bytes.len() as u64,
        original_dimensions: dims,
        dimensions: sent,
        resized,
    })
}
