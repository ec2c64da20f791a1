// Flat config for the TypeScript client (run from the repo root: `npx eslint client`).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/out/**", "**/.tools/**"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: {
        project: ["./client/tsconfig.json"],
        tsconfigRootDir: new URL("..", import.meta.url).pathname,
      },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      "@typescript-eslint/no-unnecessary-condition": "off",
      "@typescript-eslint/no-floating-promises": "error",
      eqeqeq: ["error", "smart"],
      // VS Code disposables are structural (EventEmitter, TreeView… are all `Disposable`s).
      "@typescript-eslint/no-unsafe-class-instance-assignment": "off",
    },
  },
  {
    // node:test's describe/it return promises the runner awaits itself.
    files: ["client/test/**/*.ts"],
    rules: { "@typescript-eslint/no-floating-promises": "off" },
  },
  {
    files: ["**/*.mjs", "e2e/**/*.js", "client/e2e/**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      globals: {
        process: "readonly", console: "readonly", URL: "readonly", setTimeout: "readonly", Buffer: "readonly",
        // drive.mjs passes functions to page.evaluate: they run in the browser.
        document: "readonly", getComputedStyle: "readonly", window: "readonly",
      },
    },
  },
);
