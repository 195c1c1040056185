// Lint and format as the Effect monorepo does: typescript-eslint, and dprint through
// @effect/eslint-plugin (120 columns, no semicolons, double quotes, no trailing commas).
import * as effectEslint from "@effect/eslint-plugin"
import eslint from "@eslint/js"
import sortDestructureKeys from "eslint-plugin-sort-destructure-keys"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    ignores: ["**/dist", "**/node_modules", "**/*.md", "scratch/**", "recordings/**"]
  },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  effectEslint.configs.dprint,
  {
    plugins: {
      "sort-destructure-keys": sortDestructureKeys
    },
    languageOptions: {
      parser: tseslint.parser
    },
    rules: {
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      "object-shorthand": "error",
      "prefer-destructuring": "off",
      "sort-imports": "off",
      "no-restricted-syntax": ["error", {
        selector: "CallExpression[callee.property.name='push'] > SpreadElement.arguments",
        message: "Do not use spread arguments in Array.push"
      }],
      "no-unused-vars": "off",
      "prefer-rest-params": "off",
      "prefer-spread": "off",
      "require-yield": "off",
      "sort-destructure-keys/sort-destructure-keys": "off",
      "@typescript-eslint/array-type": ["warn", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/consistent-type-imports": "warn",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-use-before-define": "off",
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  },
  {
    // Plain Node programs (the package check's consumer).
    files: ["**/*.mjs"],
    languageOptions: { globals: { console: "readonly", process: "readonly" } }
  }
)
