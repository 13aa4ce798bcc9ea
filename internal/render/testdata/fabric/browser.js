// What the fabric oracle (oracle.js) and the corpus's generator
// (generate.js) share: Debian's Chromium driven by playwright-core, and a
// blank page holding fabric 7.4.0's UMD build and the Go fonts. Both come
// from the node project of the panel's browser tests
// (internal/panel/browser), which pins their versions: no second project.
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

const project = path.resolve(__dirname, '../../../panel/browser');
const projectRequire = createRequire(path.join(project, 'package.json'));
const { launch } = projectRequire('./lib.js');
const fabricSource = fs.readFileSync(projectRequire.resolve('fabric'), 'utf8');

// faceName is the Platen font a family prints in with the given weight
// and style (testdata/fabric/README.md): the family itself when neither
// is asked for, else the family with -Bold, -Italic or -BoldItalic,
// replacing a final -Regular.
function faceName(family, bold, italic) {
  if (!bold && !italic) return family;
  const suffix = (bold ? 'Bold' : '') + (italic ? 'Italic' : '');
  const stem = family.endsWith('-Regular') ? family.slice(0, -'-Regular'.length) : family;
  return `${stem}-${suffix}`;
}

// families lists the fontFamily of every object of a canvas's JSON, in
// groups, clip paths and per-character styles (either form) too.
function families(json, found = new Set()) {
  if (Array.isArray(json)) {
    json.forEach((v) => families(v, found));
  } else if (json && typeof json === 'object') {
    for (const [k, v] of Object.entries(json)) {
      if (k === 'fontFamily' && typeof v === 'string') found.add(v);
      else families(v, found);
    }
  }
  return found;
}

// fontFaces are the faces to register for the families, from the .ttf
// files of fontDir: each family's regular face and, where the rule names
// a file that exists, its bold (700), italic and bold italic faces, all
// under the family's own name, so that the browser picks for fabric's
// weight and style the face Platen prints.
function fontFaces(fontDir, names) {
  const faces = [];
  for (const family of names) {
    for (const [bold, italic] of [[false, false], [true, false], [false, true], [true, true]]) {
      const file = path.join(fontDir, faceName(family, bold, italic) + '.ttf');
      if (!fs.existsSync(file)) {
        if (!bold && !italic) throw new Error(`font family ${family}: no file ${file}`);
        continue;
      }
      faces.push({ family, weight: bold ? '700' : '400', style: italic ? 'italic' : 'normal', data: fs.readFileSync(file).toString('base64') });
    }
  }
  return faces;
}

// openFabric launches Chromium and opens a blank page with fabric loaded
// and the faces registered and loaded. Filters run on the 2D canvas, not
// WebGL (which a headless shell without a GPU emulates, and which reads
// the Grayscale filter's mode otherwise), and caches may be as large as a
// page: fabric draws a clipped object through a cache canvas, which past
// its default limits (2 megapixels) it would draw smaller and enlarge.
//
// Hinting is off, as for the fidelity suite's Chromium and as poppler
// draws: glyphs are their outlines.
async function openFabric(faces) {
  const browser = await launch(['--font-render-hinting=none']);
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
  await page.addScriptTag({ content: fabricSource });
  await page.evaluate(async (faces) => {
    fabric.config.configure({ enableGLFiltering: false, perfLimitSizeTotal: 1 << 28, maxCacheSideLimit: 16384 });
    for (const f of faces) {
      const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
      const face = new FontFace(f.family, bytes, { weight: f.weight, style: f.style });
      document.fonts.add(await face.load());
    }
    await document.fonts.ready;
  }, faces);
  return { browser, page };
}

module.exports = { faceName, families, fontFaces, openFabric };
