// esbuild bundles the stylesheet imported by main.tsx into its own file.
declare module '*.css';
