/// <reference types="vitest/config" />
import { defineConfig } from "vite";

// The UI is embedded into the Tauri binary from dist/; there is no dev server
// in the build (see build.rs), so relative asset paths and a fixed outDir.
export default defineConfig({
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    css: { include: [/.+/] },
  },
});
