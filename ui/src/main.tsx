import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import { App } from "./App";
import "./styles.css";
import { applyStoredTheme } from "./state/theme";

// The remembered theme before the first render, so a chosen theme never
// flashes the other one (state/theme.ts).
applyStoredTheme();

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
