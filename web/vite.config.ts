import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig, type Plugin } from 'vite';

/**
 * uPlot 1.6.32 builds a number format from navigator.language when its module loads, and that
 * throws on a tag Intl refuses (`en-US@posix`, Chromium's on a Linux box with LANG=C), so the
 * chart never loads. uPlot's source has since taken the runtime's default instead (its pull
 * request 1054); this makes the same change until a release carries it. The chart passes its own
 * formatters (web/src/shared/format.ts), so that format is never shown. The build fails once the line is
 * gone: then this plugin goes too.
 */
function uplotWithoutNavigatorLanguage(): Plugin {
  const reads = "new Intl.NumberFormat(domEnv ? nav.language : 'en-US')";
  return {
    name: 'uplot-without-navigator-language',
    transform(code, id) {
      if (!/[\\/]uplot[\\/]dist[\\/]uPlot\.esm\.js$/.test(id)) return undefined;
      if (!code.includes(reads)) this.error(`uPlot no longer has ${reads}: remove this plugin`);
      return { code: code.replace(reads, 'new Intl.NumberFormat()'), map: null };
    },
  };
}

/**
 * The dashboard, built into the server's build output (dist/web), which every API node serves
 * under /ui/. Nothing is inlined (no data: URLs, no inline script), so the page's
 * Content-Security-Policy can allow scripts and styles from its own origin only.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  plugins: [preact(), uplotWithoutNavigatorLanguage()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
