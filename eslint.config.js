import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", ".cache/", "coverage/", "reports/", ".stryker-tmp/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  {
    // Lookups keyed by outside data (agent ids, tool names, session ids, config keys, header
    // names) must never reach Object.prototype: `{}` as a dictionary inherits `constructor`,
    // `toString` and `__proto__`. Use a Map, or a null-prototype object (nullPrototype()).
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          // `const x: Record<string, T> = {}` (or Partial<...>): the form a dictionary filled from outside data takes.
          selector:
            "VariableDeclarator[id.typeAnnotation.typeAnnotation.typeName.name='Record'][id.typeAnnotation.typeAnnotation.typeArguments.params.0.type='TSStringKeyword'][init.type='ObjectExpression'][init.properties.length=0], VariableDeclarator[id.typeAnnotation.typeAnnotation.typeName.name='Partial'][id.typeAnnotation.typeAnnotation.typeArguments.params.0.typeArguments.params.0.type='TSStringKeyword'][init.type='ObjectExpression'][init.properties.length=0]",
          message:
            "A dictionary as a plain object inherits Object.prototype (constructor, __proto__): use a Map, or nullPrototype() from src/core/config-shape.ts.",
        },
        {
          selector: "MemberExpression[object.name='Object'][property.name='prototype'] ~ Identifier[name='hasOwnProperty']",
          message: "Use Object.hasOwn.",
        },
      ],
    },
  },
);
