//! Read of images, PDFs and notebooks; NotebookEdit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod file_support;

use std::fs;
use std::path::Path;

use base64::Engine as _;
use file_support::{Session, s};
use gatehouse_core::CallStatus;
use gatehouse_protocol::event::ContentBlock;
use pdf_extract::content::{Content, Operation};
use pdf_extract::{Document, Object, Stream, dictionary};
use serde_json::{Value, json};

fn image_block(r: &gatehouse_core::ToolCallResult) -> (String, Vec<u8>) {
    r.content
        .iter()
        .find_map(|b| match b {
            ContentBlock::Image { source } => Some((
                source.media_type.clone(),
                base64::engine::general_purpose::STANDARD
                    .decode(&source.data)
                    .unwrap(),
            )),
            _ => None,
        })
        .expect("an image block")
}

#[tokio::test]
async fn small_images_pass_through_and_large_ones_are_downscaled() {
    let sx = Session::new();
    let small = sx.path("small.png");
    image::RgbaImage::from_pixel(40, 30, image::Rgba([10, 20, 30, 255]))
        .save(&small)
        .unwrap();
    let r = sx.run("Read", json!({"file_path": s(&small)})).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let (mime, bytes) = image_block(&r);
    assert_eq!(mime, "image/png");
    assert_eq!(bytes, fs::read(&small).unwrap());
    assert!(r.text().contains("40×30"), "{}", r.text());
    assert!(sx.cache.get(&small).is_some());

    let big = sx.path("big.jpg");
    image::RgbImage::from_fn(3000, 1200, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    })
    .save(&big)
    .unwrap();
    let r = sx.run("Read", json!({"file_path": s(&big)})).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let (mime, bytes) = image_block(&r);
    assert_eq!(mime, "image/jpeg");
    let img = image::load_from_memory(&bytes).unwrap();
    assert_eq!((img.width(), img.height()), (2000, 800));
    assert!(r.text().contains("downscaled to 2000×800"), "{}", r.text());
}

#[tokio::test]
async fn a_corrupt_image_is_an_error_naming_the_file() {
    let sx = Session::new();
    let p = sx.write("broken.png", b"not a png at all");
    let text = sx.err("Read", json!({"file_path": s(&p)})).await;
    assert!(text.contains("broken.png"), "{text}");
}

/// A PDF with one line of text per page.
fn make_pdf(path: &Path, pages: &[&str]) {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier",
    });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    let mut kids = Vec::new();
    for text in pages {
        let content = Content {
            operations: vec![
                Operation::new("BT", vec![]),
                Operation::new("Tf", vec!["F1".into(), 24.into()]),
                Operation::new("Td", vec![100.into(), 600.into()]),
                Operation::new("Tj", vec![Object::string_literal(*text)]),
                Operation::new("ET", vec![]),
            ],
        };
        let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
        });
        kids.push(page_id.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => count,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    doc.save(path).unwrap();
}

#[tokio::test]
async fn pdfs_are_read_as_text_per_page_with_a_range() {
    let sx = Session::new();
    let p = sx.path("doc.pdf");
    make_pdf(
        &p,
        &["First page words", "Second page words", "Third page words"],
    );
    let text = sx.ok("Read", json!({"file_path": s(&p)})).await;
    assert!(text.contains("(3 pages)"), "{text}");
    assert!(
        text.contains("<page number=\"1\">") && text.contains("First page words"),
        "{text}"
    );
    assert!(text.contains("Third page words"), "{text}");

    let text = sx
        .ok("Read", json!({"file_path": s(&p), "pages": "2"}))
        .await;
    assert!(
        text.contains("Second page words") && !text.contains("First page"),
        "{text}"
    );
    assert!(text.contains("pages=\"3-\""), "{text}");

    let text = sx
        .err("Read", json!({"file_path": s(&p), "pages": "7-"}))
        .await;
    assert!(text.contains("has 3 pages"), "{text}");
    let r = sx
        .run("Read", json!({"file_path": s(&p), "pages": "5-2"}))
        .await;
    assert!(r.text().contains("`pages` must be"), "{}", r.text());
    let r = sx
        .run("Read", json!({"file_path": s(&p), "pages": "1-40"}))
        .await;
    assert!(r.text().contains("at most 20"), "{}", r.text());

    let fake = sx.write("fake.pdf", "%PDF-1.4 garbage");
    let text = sx.err("Read", json!({"file_path": s(&fake)})).await;
    assert!(text.contains("fake.pdf"), "{text}");
}

fn notebook() -> Value {
    json!({
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "Some text"]},
            {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 3,
             "source": "print('hi')",
             "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["hi\n"]},
                {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"]}, "metadata": {}}
             ]},
            {"cell_type": "code", "id": "c2", "metadata": {}, "execution_count": 4, "source": "1/0",
             "outputs": [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero", "traceback": []}]}
        ],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5
    })
}

fn write_nb(sx: &Session, name: &str) -> std::path::PathBuf {
    let mut text = serde_json::to_string_pretty(&notebook()).unwrap();
    text.push('\n');
    sx.write(name, text)
}

#[tokio::test]
async fn notebooks_are_read_as_cells_with_outputs() {
    let sx = Session::new();
    let p = write_nb(&sx, "nb.ipynb");
    let r = sx.run("Read", json!({"file_path": s(&p)})).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let text = r.text();
    assert!(
        text.contains("<cell id=\"intro\" type=\"markdown\">\n# Title\nSome text\n</cell>"),
        "{text}"
    );
    assert!(
        text.contains("<output cell=\"c1\" type=\"stream\">\nhi\n</output>"),
        "{text}"
    );
    assert!(
        text.contains("ZeroDivisionError: division by zero"),
        "{text}"
    );
    assert!(
        r.content
            .iter()
            .any(|b| matches!(b, ContentBlock::Image { .. }))
    );
}

#[tokio::test]
async fn notebook_edit_replaces_inserts_and_deletes_cells() {
    let sx = Session::new();
    let p = write_nb(&sx, "nb.ipynb");
    let text = sx
        .err(
            "NotebookEdit",
            json!({"notebook_path": s(&p), "cell_id": "c1", "new_source": "x"}),
        )
        .await;
    assert!(text.contains("has not been read"), "{text}");
    sx.ok("Read", json!({"file_path": s(&p)})).await;

    sx.ok(
        "NotebookEdit",
        json!({"notebook_path": s(&p), "cell_id": "c1", "new_source": "print('a')\nprint('b')"}),
    )
    .await;
    let nb: Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
    assert_eq!(
        nb["cells"][1]["source"],
        json!(["print('a')\n", "print('b')"])
    );
    assert_eq!(nb["cells"][1]["outputs"], json!([]));
    assert_eq!(nb["cells"][1]["execution_count"], Value::Null);

    // No re-read needed: the cache was updated.
    let text = sx
        .ok(
            "NotebookEdit",
            json!({"notebook_path": s(&p), "cell_id": "intro", "edit_mode": "insert", "cell_type": "markdown", "new_source": "## Sub"}),
        )
        .await;
    assert!(
        text.contains("Inserted cell") && text.contains("index 1"),
        "{text}"
    );
    let nb: Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
    assert_eq!(nb["cells"][1]["source"], json!(["## Sub"]));
    assert_eq!(nb["cells"][1]["id"].as_str().unwrap().len(), 8);

    sx.ok(
        "NotebookEdit",
        json!({"notebook_path": s(&p), "cell_id": "cell-3", "edit_mode": "delete"}),
    )
    .await;
    let raw = fs::read_to_string(&p).unwrap();
    let nb: Value = serde_json::from_str(&raw).unwrap();
    let ids: Vec<&str> = nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids[0], "intro");
    assert_eq!(ids[2], "c1");
    // Formatting conventions: the file's indentation and trailing newline.
    assert!(raw.starts_with("{\n  \"cells\""), "{}", &raw[..40]);
    assert!(raw.ends_with("}\n"));

    let text = sx
        .err(
            "NotebookEdit",
            json!({"notebook_path": s(&p), "cell_id": "nope", "new_source": "x"}),
        )
        .await;
    assert!(text.contains("no cell \"nope\""), "{text}");

    fs::write(&p, "{\"cells\": []}").unwrap();
    let text = sx
        .err(
            "NotebookEdit",
            json!({"notebook_path": s(&p), "cell_id": "c1", "new_source": "x"}),
        )
        .await;
    assert!(text.contains("modified since it was read"), "{text}");
}

#[tokio::test]
async fn notebook_edit_validates_its_input() {
    let sx = Session::new();
    let r = sx
        .run(
            "NotebookEdit",
            json!({"notebook_path": "/tmp/x.py", "cell_id": "a", "new_source": "b"}),
        )
        .await;
    assert!(r.text().contains("not a Jupyter notebook"), "{}", r.text());
    let r = sx
        .run(
            "NotebookEdit",
            json!({"notebook_path": "/tmp/x.ipynb", "edit_mode": "insert", "new_source": "b"}),
        )
        .await;
    assert!(r.text().contains("`cell_type` is required"), "{}", r.text());
}
