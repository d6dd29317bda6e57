// Tailwind CSS 4 through its PostCSS plugin (the only plugin needed: it handles imports and prefixes).
export default { plugins: { "@tailwindcss/postcss": {} } };
