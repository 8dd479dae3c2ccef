import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The venue serves the built files under /console/ from memory (packages/adapters/src/http/
// console-routes.ts); everything the page needs is in dist, nothing is fetched from elsewhere.
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    assetsInlineLimit: 0,
    // The bundler's timing advice is for slow builds; this one takes seconds and should print nothing.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
});
