// The fabric oracle: draws canvases as fabric 7.4.0 itself draws them, in
// Chromium, for TestFabricFidelity (internal/render/fidelity_fabric_test.go)
// to compare with Platen's PDF.
//
//	node oracle.js BATCH.json
//
// BATCH is {"fonts": DIR, "jobs": [JOB, ...]}: DIR holds the Go fonts as
// NAME.ttf; each JOB is {"name", "out", "fabric", "width", "height",
// "bleed", "zoom"}: a canvas's toJSON() output, drawn on an element of
// width × height device pixels (the bleed box on the test's grid times its
// supersampling) with the canvas's origin on the trim box's corner, bleed
// pixels in from the element's corner, zoom device pixels a canvas pixel.
// Each job's picture is written to out as a PNG on white. One browser
// draws the whole batch: a launch costs more than most canvases.
const fs = require('fs');
const { families, fontFaces, openFabric } = require('./browser.js');

// draw renders one job in the page and returns its PNG as a data: URL.
// Objects are drawn straight onto the canvas, not through fabric's cache
// canvases (objectCaching), which are bitmaps placed at a fraction of a
// pixel and smoothed.
async function draw(job) {
  fabric.FabricObject.ownDefaults.objectCaching = false;
  const el = document.createElement('canvas');
  const canvas = new fabric.StaticCanvas(el, {
    width: job.width, height: job.height, enableRetinaScaling: false, renderOnAddRemove: false,
  });
  await canvas.loadFromJSON(job.fabric);
  canvas.setViewportTransform([job.zoom, 0, 0, job.zoom, job.bleed, job.bleed]);
  canvas.renderAll();
  const out = document.createElement('canvas');
  out.width = job.width;
  out.height = job.height;
  const ctx = out.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, job.width, job.height);
  ctx.drawImage(canvas.getElement(), 0, 0);
  canvas.dispose();
  return out.toDataURL('image/png');
}

async function main() {
  const batch = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const used = new Set();
  batch.jobs.forEach((j) => families(j.fabric, used));
  const { browser, page } = await openFabric(fontFaces(batch.fonts, [...used].sort()));
  const failed = [];
  try {
    for (const job of batch.jobs) {
      try {
        const url = await page.evaluate(draw, job);
        fs.writeFileSync(job.out, Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'));
      } catch (e) {
        failed.push(`${job.name}: ${e.message || e}`);
      }
    }
  } finally {
    await browser.close();
  }
  if (failed.length) {
    console.error(failed.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => { console.error(e.stack || e); process.exit(1); });
