// Generates the fabric corpus: every scene of scenes.js built by fabric
// 7.4.0 in Chromium, its canvas.toJSON() saved as NAME.json inside the
// Platen document that carries it (README.md). The output is the same on
// every run: edit scenes.js and run it again, never the JSON.
//
//	node internal/render/testdata/fabric/generate.js
//
// It runs `go run assets.go` first, which writes the pictures into this
// directory and the Go fonts into a temporary one.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { fontFaces, openFabric } = require('./browser.js');

// fontFamilies are the families the scenes may name (README.md).
const fontFamilies = ['Go-Regular', 'Go-Mono', 'Go-Medium', 'Go-Smallcaps'];

// ---- fabric 5.x and 6.x formats, from 7.4.0's (README.md says how they differ)

// legacyTypes maps 7.x's class names to 5.x's lowercase ones.
const legacyTypes = {
  Rect: 'rect', Circle: 'circle', Ellipse: 'ellipse', Line: 'line', Triangle: 'triangle', Polygon: 'polygon',
  Polyline: 'polyline', Path: 'path', Text: 'text', IText: 'i-text', Textbox: 'textbox', Image: 'image', Group: 'group',
};

const legacyVersion = { 5: '5.3.0', 6: '6.7.1' };

// stylesObject turns 6.x and 7.x's style ranges ({start, end, style},
// counted in graphemes with the line breaks left out) into 5.x's nested
// {line: {char: style}}, as fabric's stylesFromArray does.
function stylesObject(ranges, text) {
  const out = {};
  let index = -1;
  text.split(/\r?\n/).forEach((line, l) => {
    Array.from(line).forEach((_, c) => {
      index++;
      const r = ranges.find((s) => s.start <= index && index < s.end);
      if (r) {
        out[l] = out[l] || {};
        out[l][c] = { ...r.style };
      }
    });
  });
  return out;
}

// toLegacy rewrites one object's JSON (and those inside it) as fabric
// `major` wrote it.
function toLegacy(o, major) {
  const out = { ...o, version: legacyVersion[major] };
  if (major === 5) {
    out.type = legacyTypes[o.type] || o.type;
    if (Array.isArray(o.styles)) out.styles = stylesObject(o.styles, o.text);
    delete out.layoutManager; // 6.0's; 5.x groups always fit their objects
    delete out.interactive;
    delete out.textDecorationThickness; // 7.0's; 5.x drew 1/15 of the size
    delete out.counterClockwise; // 6.0's
  }
  if (major === 6) delete out.textDecorationThickness;
  for (const filler of ['fill', 'stroke']) {
    // Until 7.0 a gradient's stops carried an opacity of their own.
    if (o[filler] && o[filler].colorStops) {
      out[filler] = { ...o[filler], colorStops: o[filler].colorStops.map((s) => ({ ...s, opacity: 1 })) };
    }
  }
  if (o.objects) out.objects = o.objects.map((c) => toLegacy(c, major));
  if (o.clipPath) out.clipPath = toLegacy(o.clipPath, major);
  return out;
}

function canvasToLegacy(json, major) {
  const out = { ...json, version: legacyVersion[major], objects: json.objects.map((o) => toLegacy(o, major)) };
  for (const k of ['backgroundImage', 'clipPath']) if (json[k]) out[k] = toLegacy(json[k], major);
  return out;
}

// ---- building

// build runs in the page: it draws a scene's surfaces on canvases of its
// size and returns their JSON.
async function build(name) {
  const { page: p, builds } = scenes[name];
  const out = [];
  for (const b of builds) {
    const canvas = new fabric.StaticCanvas(document.createElement('canvas'), { width: p.cw, height: p.ch, renderOnAddRemove: false });
    await b(canvas);
    out.push(canvas.toJSON());
    canvas.dispose();
  }
  return out;
}

// envelope is the Platen document carrying the canvases.
function envelope(page, canvases) {
  const doc = { format: 'fabric', width: page.w, height: page.h, bleed: page.bleed, unit: 'mm', dpi: 300 };
  const canvas = { width: page.cw, height: page.ch };
  if (!page.surfaces) return { ...doc, canvas, fabric: canvases[0] };
  return { ...doc, surfaces: page.surfaces.map((name, i) => ({ name, canvas, fabric: canvases[i] })) };
}

async function main() {
  const fonts = fs.mkdtempSync(path.join(os.tmpdir(), 'fabric-fonts-'));
  execFileSync('go', ['run', 'assets.go', '.', fonts], { cwd: __dirname, stdio: 'inherit' });
  const dataURL = (file, type) => `data:${type};base64,${fs.readFileSync(path.join(__dirname, file)).toString('base64')}`;
  const assets = { photo: dataURL('photo.jpg', 'image/jpeg'), badge: dataURL('badge.png', 'image/png') };
  const { browser, page } = await openFabric(fontFaces(fonts, fontFamilies));
  try {
    await page.evaluate((a) => { window.assets = a; }, assets);
    await page.addScriptTag({ content: fs.readFileSync(path.join(__dirname, 'scenes.js'), 'utf8') + `\nwindow.scenes = scenes;` });
    const names = await page.evaluate(() => Object.keys(scenes));
    for (const name of names) {
      const pageSpec = await page.evaluate((n) => scenes[n].page, name);
      let canvases = await page.evaluate(build, name);
      if (pageSpec.legacy) canvases = canvases.map((c) => canvasToLegacy(c, pageSpec.legacy));
      const file = path.join(__dirname, name + '.json');
      fs.writeFileSync(file, JSON.stringify(envelope(pageSpec, canvases), null, 1) + '\n');
      console.log(`${name}.json: ${fs.statSync(file).size} bytes`);
    }
  } finally {
    await browser.close();
    fs.rmSync(fonts, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e.stack || e); process.exit(1); });
