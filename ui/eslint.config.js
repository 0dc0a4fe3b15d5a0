import js from "@eslint/js";
import globals from "globals";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist", "node_modules", "src/generated"] },
  {
    files: ["**/*.{ts,tsx}"],
    extends: [js.configs.recommended, ...tseslint.configs.strict],
    languageOptions: { globals: globals.browser },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Components reach the backend through src/client.ts only.
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@tauri-apps/api/core",
              message: "Call the backend through src/client.ts, the one typed client.",
            },
            {
              name: "@tauri-apps/api/event",
              message: "Subscribe to events through src/client.ts, the one typed client.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/client.ts"],
    rules: { "no-restricted-imports": "off" },
  },
);
