// The corpus's canvases, built with fabric 7.4.0's own API as a
// customiser builds them. generate.js loads this file into a page holding
// fabric, the Go fonts and the pictures (window.assets: photo, a JPEG
// data: URL, and badge, a PNG with transparency) and saves each canvas's
// toJSON() in its document (README.md).
//
// scene(name, page, build...) declares a document: page is its trim box
// in mm (w, h), its bleed, the canvas's size in pixels (cw, ch, the trim's
// proportions), and legacy: 5 or 6 to save it in that fabric version's
// format; each build(canvas) draws one surface (several: one per surface,
// named by page.surfaces).
/* global fabric, assets */
const F = fabric;
const scenes = {};

function scene(name, page, ...builds) {
  scenes[name] = { page, builds };
}

// Helpers a customiser's code would have its own versions of.
const topLeft = { originX: 'left', originY: 'top' };
const go = (extra) => ({ fontFamily: 'Go-Regular', fill: '#222222', ...extra });
const photo = (opts) => F.FabricImage.fromURL(assets.photo).then((i) => i.set(opts));
const badge = (opts) => F.FabricImage.fromURL(assets.badge).then((i) => i.set(opts));
const linear = (units, coords, stops) => new F.Gradient({ type: 'linear', gradientUnits: units, coords, colorStops: stops });
const radial = (units, coords, stops) => new F.Gradient({ type: 'radial', gradientUnits: units, coords, colorStops: stops });
// span is where word starts and ends in text, as setSelectionStyles
// counts (line breaks included).
const span = (text, word) => [text.indexOf(word), text.indexOf(word) + word.length];
const stops = (...colors) => colors.map((color, i) => ({ offset: i / (colors.length - 1), color }));

// A page of 80 × 56 mm on a canvas of 800 × 560: 10 canvas pixels a mm.
const small = { w: 80, h: 56, bleed: 2, cw: 800, ch: 560 };

// ---- shapes and colours

scene('rect-colours', small, (c) => {
  c.backgroundColor = '#fffdf5';
  const fills = ['#c33', '#3366cc', 'rgb(40, 160, 80)', 'rgba(200, 120, 0, 0.5)', 'red', 'navy', '#0a0', 'hsl(280, 60%, 50%)'];
  fills.forEach((fill, i) => c.add(new F.Rect({ ...topLeft, left: 40 + (i % 4) * 185, top: 60 + Math.floor(i / 4) * 240, width: 160, height: 200, fill, strokeWidth: 0 })));
  c.add(new F.Rect({ ...topLeft, left: 300, top: 200, width: 200, height: 160, fill: 'rgba(0, 0, 0, 0.25)', strokeWidth: 0 }));
});

scene('rect-rounded', small, (c) => {
  c.add(new F.Rect({ ...topLeft, left: 40, top: 40, width: 300, height: 200, rx: 30, ry: 30, fill: '#3a7bd5', strokeWidth: 0 }));
  c.add(new F.Rect({ ...topLeft, left: 420, top: 40, width: 320, height: 200, rx: 80, ry: 40, fill: '#f5c518', stroke: '#333', strokeWidth: 8 }));
  c.add(new F.Rect({ ...topLeft, left: 40, top: 300, width: 300, height: 200, rx: 200, ry: 200, fill: '#e94e77', strokeWidth: 0 }));
  c.add(new F.Rect({ left: 580, top: 400, width: 280, height: 160, rx: 20, ry: 60, fill: '', stroke: '#2a9d8f', strokeWidth: 14 }));
});

scene('rect-origins', small, (c) => {
  // Every origin at the same point, each a colour: the rectangles fan out
  // around the cross.
  const colours = ['#e63946', '#f4a261', '#2a9d8f', '#264653', '#8ab17d', '#e9c46a', '#6d597a', '#b56576', '#457b9d'];
  let i = 0;
  for (const originY of ['top', 'center', 'bottom']) {
    for (const originX of ['left', 'center', 'right']) {
      const x = 160 + (i % 3) * 240, y = 110 + Math.floor(i / 3) * 170;
      c.add(new F.Rect({ originX, originY, left: x, top: y, width: 90, height: 60, fill: colours[i], strokeWidth: 0 }));
      c.add(new F.Rect({ originX, originY, left: x, top: y, width: 90, height: 60, fill: '', stroke: '#000', strokeWidth: 4, angle: 20 }));
      c.add(new F.Line([x - 20, y, x + 20, y], { stroke: '#000', strokeWidth: 2 }));
      c.add(new F.Line([x, y - 20, x, y + 20], { stroke: '#000', strokeWidth: 2 }));
      i++;
    }
  }
});

scene('transform-scale-angle', small, (c) => {
  c.add(new F.Rect({ ...topLeft, left: 40, top: 40, width: 100, height: 100, scaleX: 2.5, scaleY: 1.2, fill: '#457b9d', stroke: '#1d3557', strokeWidth: 6 }));
  c.add(new F.Rect({ left: 560, top: 140, width: 200, height: 100, angle: 30, fill: '#e76f51', strokeWidth: 0 }));
  c.add(new F.Ellipse({ left: 220, top: 400, rx: 60, ry: 60, scaleX: 2, scaleY: 0.8, angle: -20, fill: '#2a9d8f', stroke: '#264653', strokeWidth: 5 }));
  c.add(new F.Triangle({ ...topLeft, left: 520, top: 300, width: 120, height: 100, angle: 75, scaleX: 1.5, fill: '#e9c46a', strokeWidth: 0 }));
});

scene('transform-skew', small, (c) => {
  c.add(new F.Rect({ left: 200, top: 150, width: 200, height: 120, skewX: 30, fill: '#6a4c93', strokeWidth: 0 }));
  c.add(new F.Rect({ left: 580, top: 150, width: 200, height: 120, skewY: 20, fill: '#1982c4', stroke: '#000', strokeWidth: 4 }));
  c.add(new F.Rect({ left: 200, top: 400, width: 160, height: 100, skewX: -20, skewY: 15, angle: 10, fill: '#8ac926', strokeWidth: 0 }));
  c.add(new F.FabricText('Skewed', go({ left: 580, top: 400, fontSize: 70, skewX: -15, fill: '#ff595e' })));
});

scene('transform-flip', small, (c) => {
  const tri = (opts) => new F.Polygon([{ x: 0, y: 0 }, { x: 160, y: 40 }, { x: 30, y: 140 }], { fill: '#ef476f', stroke: '#073b4c', strokeWidth: 4, ...opts });
  c.add(tri({ left: 150, top: 150 }));
  c.add(tri({ left: 400, top: 150, flipX: true }));
  c.add(tri({ left: 650, top: 150, flipY: true }));
  c.add(tri({ left: 150, top: 400, flipX: true, flipY: true }));
  c.add(tri({ left: 400, top: 400, flipX: true, angle: 30 }));
  c.add(new F.FabricText('Flip', go({ left: 650, top: 400, fontSize: 80, flipX: true, fill: '#118ab2' })));
});

scene('opacity-visible', small, (c) => {
  c.add(new F.Rect({ ...topLeft, left: 60, top: 60, width: 400, height: 250, fill: '#264653', strokeWidth: 0 }));
  c.add(new F.Circle({ left: 400, top: 300, radius: 150, fill: '#e9c46a', opacity: 0.5, stroke: '#e76f51', strokeWidth: 20 }));
  c.add(new F.Rect({ ...topLeft, left: 500, top: 80, width: 200, height: 150, fill: 'rgba(42, 157, 143, 0.8)', opacity: 0.6, strokeWidth: 0 }));
  c.add(new F.Rect({ ...topLeft, left: 100, top: 350, width: 200, height: 150, fill: '#e63946', visible: false }));
  c.add(new F.FabricText('hidden', go({ left: 600, top: 450, fontSize: 60, visible: false })));
});

scene('circle-arcs', small, (c) => {
  c.add(new F.Circle({ left: 150, top: 150, radius: 100, fill: '#3d5a80', strokeWidth: 0 }));
  c.add(new F.Circle({ left: 400, top: 150, radius: 100, fill: '#ee6c4d', startAngle: 0, endAngle: 270, stroke: '#293241', strokeWidth: 6 }));
  c.add(new F.Circle({ left: 650, top: 150, radius: 100, fill: '', startAngle: 200, endAngle: 340, stroke: '#98c1d9', strokeWidth: 24, strokeLineCap: 'round' }));
  c.add(new F.Circle({ left: 150, top: 410, radius: 100, fill: '#e0fbfc', stroke: '#3d5a80', strokeWidth: 10, strokeDashArray: [30, 15] }));
  c.add(new F.Circle({ left: 400, top: 410, radius: 100, fill: '#84a59d', startAngle: 90, endAngle: 180, counterClockwise: true, strokeWidth: 0 }));
  c.add(new F.Circle({ left: 650, top: 410, radius: 60, scaleX: 1.6, fill: '#f6bd60', stroke: '#000', strokeWidth: 4 }));
});

scene('ellipse', small, (c) => {
  c.add(new F.Ellipse({ ...topLeft, left: 40, top: 40, rx: 200, ry: 100, fill: '#52b788', stroke: '#081c15', strokeWidth: 8 }));
  c.add(new F.Ellipse({ left: 600, top: 150, rx: 80, ry: 130, angle: 45, fill: 'rgba(116, 0, 184, 0.7)', strokeWidth: 0 }));
  c.add(new F.Ellipse({ left: 300, top: 420, rx: 250, ry: 60, fill: '', stroke: '#e76f51', strokeWidth: 12, strokeDashArray: [40, 20] }));
});

scene('line-caps', small, (c) => {
  ['butt', 'round', 'square'].forEach((cap, i) => {
    c.add(new F.Line([100, 80 + i * 90, 500, 80 + i * 90], { stroke: '#1d3557', strokeWidth: 30, strokeLineCap: cap }));
  });
  c.add(new F.Line([100, 380, 700, 380], { stroke: '#e63946', strokeWidth: 10, strokeDashArray: [40, 20, 10, 20] }));
  c.add(new F.Line([600, 60, 720, 300], { stroke: '#2a9d8f', strokeWidth: 16, strokeLineCap: 'round' }));
  c.add(new F.Line([100, 480, 700, 520], { stroke: '#000', strokeWidth: 3 }));
});

scene('triangle', small, (c) => {
  c.add(new F.Triangle({ ...topLeft, left: 60, top: 60, width: 250, height: 200, fill: '#ffb703', strokeWidth: 0 }));
  c.add(new F.Triangle({ left: 520, top: 170, width: 250, height: 200, fill: '#219ebc', stroke: '#023047', strokeWidth: 12, strokeLineJoin: 'round' }));
  c.add(new F.Triangle({ left: 250, top: 420, width: 200, height: 120, angle: 180, fill: '#fb8500', stroke: '#000', strokeWidth: 6, strokeLineJoin: 'bevel' }));
  c.add(new F.Triangle({ left: 600, top: 420, width: 160, height: 160, angle: 90, fill: '', stroke: '#8ecae6', strokeWidth: 14, strokeLineJoin: 'miter' }));
});

scene('polygon-polyline', small, (c) => {
  const star = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? 50 : 120, a = (Math.PI / 5) * i - Math.PI / 2;
    star.push({ x: Math.round(r * Math.cos(a)), y: Math.round(r * Math.sin(a)) });
  }
  c.add(new F.Polygon(star, { left: 180, top: 180, fill: '#f4d35e', stroke: '#0d3b66', strokeWidth: 8, strokeLineJoin: 'miter' }));
  c.add(new F.Polygon([{ x: 0, y: 0 }, { x: 200, y: 30 }, { x: 160, y: 180 }, { x: 40, y: 140 }], { ...topLeft, left: 420, top: 60, fill: '#ee964b', stroke: '#000', strokeWidth: 10, strokeLineJoin: 'round' }));
  c.add(new F.Polyline([{ x: 0, y: 100 }, { x: 80, y: 0 }, { x: 160, y: 100 }, { x: 240, y: 0 }, { x: 320, y: 100 }], { ...topLeft, left: 60, top: 380, fill: '', stroke: '#0d3b66', strokeWidth: 14, strokeLineJoin: 'bevel', strokeLineCap: 'round' }));
  c.add(new F.Polyline([{ x: 0, y: 0 }, { x: 100, y: 120 }, { x: 200, y: 20 }, { x: 260, y: 140 }], { ...topLeft, left: 460, top: 340, fill: 'rgba(250, 240, 202, 0.9)', stroke: '#f95738', strokeWidth: 6 }));
});

scene('path-curves', small, (c) => {
  c.add(new F.Path('M 0 100 C 50 0 150 0 200 100 S 350 200 400 100', { left: 240, top: 130, fill: '', stroke: '#3a86ff', strokeWidth: 10 }));
  c.add(new F.Path('M 0 0 Q 100 -80 200 0 T 400 0 L 400 80 L 0 80 z', { ...topLeft, left: 40, top: 260, fill: '#8338ec', stroke: '#000', strokeWidth: 3 }));
  c.add(new F.Path('m 10 10 h 120 v 120 h -120 z m 30 30 v 60 h 60 v -60 z', { left: 620, top: 380, fill: '#ff006e', fillRule: 'evenodd', angle: 15, strokeWidth: 0 }));
  c.add(new F.Path('M 0 0 L 60 0 L 60 60 c 0 40 -60 40 -60 0 z', { left: 650, top: 130, scaleX: 1.5, scaleY: 1.5, fill: '#fb5607', strokeWidth: 0 }));
});

scene('path-arcs', small, (c) => {
  c.add(new F.Path('M 0 100 A 100 100 0 0 1 200 100 A 100 50 0 0 1 0 100 z', { ...topLeft, left: 60, top: 60, fill: '#06d6a0', stroke: '#073b4c', strokeWidth: 6 }));
  c.add(new F.Path('M 50 0 a 50 50 0 1 0 0.1 0 z', { left: 560, top: 150, scaleX: 1.8, fill: '#ef476f', strokeWidth: 0 }));
  c.add(new F.Path('M 0 0 A 150 80 30 0 0 250 60 A 150 80 30 1 1 0 0', { left: 300, top: 400, fill: '', stroke: '#118ab2', strokeWidth: 12, strokeLineCap: 'round' }));
  // A heart of arcs and curves, as clip-art paths are.
  c.add(new F.Path('M 100 30 A 35 35 0 0 1 170 30 Q 170 80 100 130 Q 30 80 30 30 A 35 35 0 0 1 100 30 z', { left: 640, top: 420, fill: '#e63946', stroke: '#9d0208', strokeWidth: 4 }));
});

scene('stroke-dash', small, (c) => {
  c.add(new F.Rect({ ...topLeft, left: 50, top: 50, width: 300, height: 180, fill: '#fefae0', stroke: '#bc6c25', strokeWidth: 8, strokeDashArray: [24, 12] }));
  c.add(new F.Path('M 0 0 C 100 -100 200 100 300 0', { left: 580, top: 140, fill: '', stroke: '#283618', strokeWidth: 6, strokeDashArray: [2, 14], strokeLineCap: 'round' }));
  c.add(new F.Circle({ left: 200, top: 400, radius: 110, fill: '', stroke: '#606c38', strokeWidth: 12, strokeDashArray: [50, 20, 10, 20] }));
  c.add(new F.Polygon([{ x: 0, y: 0 }, { x: 200, y: 0 }, { x: 100, y: 160 }], { left: 580, top: 410, fill: '#dda15e', stroke: '#000', strokeWidth: 5, strokeDashArray: [15, 10], strokeLineJoin: 'round' }));
});

scene('stroke-uniform', small, (c) => {
  c.add(new F.Rect({ left: 200, top: 150, width: 100, height: 50, scaleX: 3, scaleY: 3, fill: '#caf0f8', stroke: '#03045e', strokeWidth: 6, strokeUniform: true }));
  c.add(new F.Rect({ left: 600, top: 150, width: 100, height: 50, scaleX: 3, scaleY: 3, fill: '#caf0f8', stroke: '#03045e', strokeWidth: 6 }));
  c.add(new F.Ellipse({ left: 200, top: 420, rx: 40, ry: 40, scaleX: 4, scaleY: 1.5, fill: '', stroke: '#0077b6', strokeWidth: 8, strokeUniform: true }));
  c.add(new F.Path('M 0 0 L 50 40 L 100 0', { left: 600, top: 420, scaleX: 3, scaleY: 2, fill: '', stroke: '#00b4d8', strokeWidth: 10, strokeUniform: true, strokeLineJoin: 'round' }));
});

scene('paint-first', small, (c) => {
  c.add(new F.Rect({ left: 200, top: 150, width: 240, height: 160, fill: '#ffd166', stroke: '#073b4c', strokeWidth: 30, paintFirst: 'stroke' }));
  c.add(new F.Rect({ left: 580, top: 150, width: 240, height: 160, fill: '#ffd166', stroke: '#073b4c', strokeWidth: 30 }));
  // Platen refuses outlined text (README.md): paintFirst on a path.
  c.add(new F.Path('M 0 0 L 120 40 L 240 0 L 200 120 L 40 120 z', { left: 200, top: 420, fill: '#ef476f', stroke: '#000', strokeWidth: 24, paintFirst: 'stroke', strokeLineJoin: 'round' }));
  c.add(new F.Path('M 0 0 L 120 40 L 240 0 L 200 120 L 40 120 z', { left: 580, top: 420, fill: '#ef476f', stroke: '#000', strokeWidth: 24, strokeLineJoin: 'round' }));
});

// ---- gradients

scene('gradient-linear-pixels', small, (c) => {
  c.add(new F.Rect({ ...topLeft, left: 40, top: 40, width: 340, height: 220, strokeWidth: 0, fill: linear('pixels', { x1: 0, y1: 0, x2: 340, y2: 0 }, stops('#ff0000', '#ffff00', '#00aa00')) }));
  c.add(new F.Rect({ ...topLeft, left: 420, top: 40, width: 340, height: 220, strokeWidth: 0, fill: linear('pixels', { x1: 50, y1: 0, x2: 290, y2: 220 }, [{ offset: 0, color: '#1d3557' }, { offset: 0.3, color: '#457b9d' }, { offset: 1, color: '#f1faee' }]) }));
  c.add(new F.Circle({ left: 210, top: 410, radius: 120, strokeWidth: 0, fill: linear('pixels', { x1: 0, y1: 0, x2: 0, y2: 240 }, stops('#8338ec', 'rgb(230, 215, 251)')) }));
  c.add(new F.Rect({ left: 590, top: 410, width: 300, height: 120, angle: 20, stroke: '#3a0ca3', strokeWidth: 16, fill: linear('pixels', { x1: 0, y1: 0, x2: 300, y2: 120 }, stops('#ffbe0b', '#ff006e')) }));
});

scene('gradient-linear-percentage', small, (c) => {
  c.add(new F.Rect({ ...topLeft, left: 40, top: 40, width: 340, height: 220, strokeWidth: 0, fill: linear('percentage', { x1: 0, y1: 0, x2: 1, y2: 1 }, stops('#0096c7', '#ade8f4')) }));
  c.add(new F.Ellipse({ left: 590, top: 150, rx: 170, ry: 100, strokeWidth: 0, fill: linear('percentage', { x1: 0, y1: 0.5, x2: 1, y2: 0.5 }, [{ offset: 0, color: 'red' }, { offset: 0.5, color: 'white' }, { offset: 1, color: 'blue' }]) }));
  c.add(new F.Path('M 0 0 L 300 0 L 250 200 L 50 200 z', { left: 400, top: 420, strokeWidth: 0, fill: linear('percentage', { x1: 0, y1: 0, x2: 0, y2: 1 }, stops('#2b9348', '#eeef20')) }));
});

scene('gradient-radial', small, (c) => {
  c.add(new F.Rect({ ...topLeft, left: 40, top: 40, width: 340, height: 220, strokeWidth: 0, fill: radial('pixels', { x1: 170, y1: 110, r1: 0, x2: 170, y2: 110, r2: 170 }, stops('#fff3b0', '#e09f3e', '#540b0e')) }));
  c.add(new F.Circle({ left: 590, top: 150, radius: 110, strokeWidth: 0, fill: radial('pixels', { x1: 80, y1: 70, r1: 10, x2: 110, y2: 110, r2: 110 }, stops('#ffffff', '#3a86ff', '#03045e')) }));
  c.add(new F.Rect({ ...topLeft, left: 40, top: 300, width: 720, height: 220, strokeWidth: 0, fill: radial('percentage', { x1: 0.5, y1: 0.5, r1: 0, x2: 0.5, y2: 0.5, r2: 0.5 }, stops('#9ef01a', '#007200')) }));
});

// ---- canvas background, clips

scene('background-colour', { w: 60, h: 60, bleed: 3, cw: 600, ch: 600 }, (c) => {
  c.backgroundColor = '#1b4332';
  c.add(new F.Rect({ ...topLeft, left: -30, top: -30, width: 200, height: 200, fill: '#d8f3dc', strokeWidth: 0 }));
  c.add(new F.Circle({ left: 600, top: 600, radius: 120, fill: '#95d5b2', strokeWidth: 0 }));
  c.add(new F.FabricText('Bleed', go({ left: 300, top: 300, fontSize: 90, fill: '#ffffff' })));
});

scene('background-image', small, async (c) => {
  c.backgroundColor = '#000000';
  c.backgroundImage = await photo({ ...topLeft, left: 0, top: 0, scaleX: 800 / 600, scaleY: 560 / 400 });
  c.add(new F.Textbox('Backgrounds', go({ left: 400, top: 280, width: 700, fontSize: 80, textAlign: 'center', fill: '#ffffff', fontWeight: 'bold' })));
});

scene('canvas-clip', small, (c) => {
  c.backgroundColor = '#ffcad4';
  c.clipPath = new F.Rect({ left: 400, top: 280, width: 700, height: 460, rx: 60, ry: 60 });
  c.add(new F.Rect({ ...topLeft, left: -20, top: -20, width: 420, height: 600, fill: '#9d4edd', strokeWidth: 0 }));
  c.add(new F.Circle({ left: 650, top: 120, radius: 150, fill: '#ff9e00', strokeWidth: 0 }));
  c.add(new F.FabricText('clipped', go({ left: 560, top: 420, fontSize: 80 })));
});

scene('clip-relative', small, async (c) => {
  const img = await photo({ left: 220, top: 280, scaleX: 0.6, scaleY: 0.6 });
  img.clipPath = new F.Circle({ radius: 180, left: 0, top: 0 });
  c.add(img);
  const r = new F.Rect({ left: 600, top: 280, width: 240, height: 400, fill: linear('pixels', { x1: 0, y1: 0, x2: 0, y2: 400 }, stops('#003049', '#f77f00')), angle: 15, strokeWidth: 0 });
  r.clipPath = new F.Path('M 0 -150 L 120 150 L -120 150 z', { left: 0, top: 20 });
  c.add(r);
});

scene('clip-absolute', small, async (c) => {
  const window = () => new F.Rect({ ...topLeft, left: 100, top: 80, width: 600, height: 400, rx: 40, ry: 40, absolutePositioned: true });
  const img = await photo({ left: 300, top: 260, scaleX: 0.9, scaleY: 0.9, angle: -10 });
  img.clipPath = window();
  c.add(img);
  const t = new F.FabricText('Window', go({ fontSize: 160, left: 640, top: 420, fill: '#ffb703', fontWeight: 'bold' }));
  t.clipPath = window();
  c.add(t);
  c.add(new F.Rect({ ...topLeft, left: 100, top: 80, width: 600, height: 400, rx: 40, ry: 40, fill: '', stroke: '#000', strokeWidth: 3 }));
});

scene('group-nested', small, (c) => {
  const inner = new F.Group([
    new F.Rect({ left: 0, top: 0, width: 80, height: 80, fill: '#e76f51', strokeWidth: 0 }),
    new F.Circle({ left: 60, top: 60, radius: 40, fill: 'rgba(42, 157, 143, 0.8)', strokeWidth: 0 }),
  ], { angle: 30, scaleX: 1.5, scaleY: 1.5 });
  const outer = new F.Group([
    new F.Rect({ left: 0, top: 0, width: 360, height: 240, fill: '#e9c46a', stroke: '#264653', strokeWidth: 6 }),
    inner,
    new F.FabricText('Grouped', go({ left: 0, top: 90, fontSize: 44 })),
  ], { left: 300, top: 260, angle: -10, opacity: 0.9 });
  c.add(outer);
  const flipped = new F.Group([
    new F.Triangle({ left: 0, top: 0, width: 100, height: 100, fill: '#264653', strokeWidth: 0 }),
    new F.Rect({ left: 60, top: 40, width: 60, height: 30, fill: '#f4a261', strokeWidth: 0 }),
  ], { left: 660, top: 260, flipX: true, scaleY: 1.8, skewX: 10 });
  c.add(flipped);
});

scene('group-clip', small, async (c) => {
  const g = new F.Group([
    await photo({ left: 0, top: 0, scaleX: 0.7, scaleY: 0.7 }),
    new F.Textbox('Holiday', go({ left: 0, top: 90, width: 380, fontSize: 56, textAlign: 'center', fill: '#fff', fontWeight: 'bold' })),
  ], { left: 300, top: 280 });
  g.clipPath = new F.Rect({ left: 0, top: 0, width: 380, height: 260, rx: 30, ry: 30 });
  c.add(g);
  const g2 = new F.Group([
    new F.Rect({ left: 0, top: 0, width: 160, height: 160, fill: '#118ab2', strokeWidth: 0 }),
    new F.Rect({ left: 40, top: 40, width: 160, height: 160, fill: '#ef476f', strokeWidth: 0 }),
  ], { left: 640, top: 300, opacity: 0.5, angle: 20 });
  c.add(g2);
});

// ---- text

scene('text-basic', small, (c) => {
  c.add(new F.FabricText('Hello, fabric', go({ ...topLeft, left: 40, top: 40, fontSize: 60 })));
  c.add(new F.FabricText('Small print 24 px', go({ ...topLeft, left: 40, top: 140, fontSize: 24, fill: '#555' })));
  c.add(new F.FabricText('Centre origin', go({ left: 400, top: 280, fontSize: 50, fill: '#0b6e4f' })));
  c.add(new F.FabricText('Bottom right', go({ originX: 'right', originY: 'bottom', left: 760, top: 520, fontSize: 40, fill: '#c1121f' })));
  c.add(new F.FabricText('Turned', go({ left: 180, top: 420, fontSize: 56, angle: -20, fill: '#3a0ca3' })));
  c.add(new F.FabricText('Stretched', go({ left: 600, top: 400, fontSize: 40, scaleX: 1.6, scaleY: 0.8, fill: '#f77f00' })));
});

scene('text-fonts', small, (c) => {
  const faces = [
    ['Go-Regular', 'normal', 'normal'], ['Go-Regular', 'bold', 'normal'], ['Go-Regular', 'normal', 'italic'], ['Go-Regular', 700, 'italic'],
    ['Go-Mono', 'normal', 'normal'], ['Go-Mono', 'bold', 'normal'], ['Go-Medium', 'normal', 'normal'], ['Go-Smallcaps', 'normal', 'normal'],
    ['Go-Regular', 600, 'oblique'],
  ];
  faces.forEach(([fontFamily, fontWeight, fontStyle], i) => {
    c.add(new F.FabricText(`${fontFamily} ${fontWeight} ${fontStyle} Qg`, { ...topLeft, left: 40, top: 20 + i * 58, fontSize: 44, fontFamily, fontWeight, fontStyle, fill: '#111' }));
  });
});

scene('text-align', small, (c) => {
  const words = 'Left, centre and right aligned lines\nof a textbox';
  ['left', 'center', 'right'].forEach((textAlign, i) => {
    c.add(new F.Rect({ ...topLeft, left: 40, top: 30 + i * 175, width: 720, height: 150, fill: '#f1f1f1', strokeWidth: 0 }));
    c.add(new F.Textbox(words, go({ ...topLeft, left: 40, top: 30 + i * 175, width: 720, fontSize: 44, textAlign })));
  });
});

scene('text-line-height', small, (c) => {
  c.add(new F.FabricText('Line height one\nsecond line\nthird', go({ ...topLeft, left: 30, top: 30, fontSize: 40, lineHeight: 1 })));
  c.add(new F.FabricText('Line height 1.5\nsecond line\nthird', go({ ...topLeft, left: 420, top: 30, fontSize: 40, lineHeight: 1.5, fill: '#1d3557' })));
  c.add(new F.FabricText('Default 1.16\n\nafter an empty line', go({ ...topLeft, left: 30, top: 300, fontSize: 40, fill: '#9d0208' })));
  c.add(new F.FabricText('Tight 0.8\nlines', go({ ...topLeft, left: 480, top: 330, fontSize: 56, lineHeight: 0.8, fill: '#2d6a4f' })));
});

scene('text-char-spacing', small, (c) => {
  c.add(new F.FabricText('SPACED OUT', go({ ...topLeft, left: 40, top: 40, fontSize: 56, charSpacing: 300, fontWeight: 'bold' })));
  c.add(new F.FabricText('tight letters', go({ ...topLeft, left: 40, top: 160, fontSize: 56, charSpacing: -80 })));
  c.add(new F.Textbox('Centred and spaced\nover two lines', go({ ...topLeft, left: 40, top: 280, width: 720, fontSize: 48, charSpacing: 150, textAlign: 'center', fill: '#5a189a' })));
});

scene('text-decoration', small, (c) => {
  c.add(new F.FabricText('Underlined text', go({ ...topLeft, left: 40, top: 40, fontSize: 56, underline: true })));
  c.add(new F.FabricText('Struck through', go({ ...topLeft, left: 40, top: 160, fontSize: 56, linethrough: true, fill: '#c1121f' })));
  c.add(new F.FabricText('Both at once\nand two lines', go({ ...topLeft, left: 40, top: 280, fontSize: 48, underline: true, linethrough: true, fill: '#003049' })));
  c.add(new F.Textbox('Right, underlined', go({ ...topLeft, left: 420, top: 430, width: 340, fontSize: 36, underline: true, textAlign: 'right', fontStyle: 'italic' })));
});

scene('text-outline', small, (c) => {
  c.add(new F.FabricText('Outlined', go({ ...topLeft, left: 40, top: 40, fontSize: 96, fontWeight: 'bold', fill: '#ffd166', stroke: '#073b4c', strokeWidth: 6, paintFirst: 'stroke', strokeLineJoin: 'round' })));
  c.add(new F.FabricText('Stroke over fill', go({ ...topLeft, left: 40, top: 220, fontSize: 64, fill: '#ef476f', stroke: '#118ab2', strokeWidth: 2 })));
  c.add(new F.Textbox('Spaced and outlined, wrapped', go({ ...topLeft, left: 40, top: 340, width: 700, fontSize: 48, charSpacing: 150, fill: '#ffffff', stroke: '#000000', strokeWidth: 3, paintFirst: 'stroke', textAlign: 'center' })));
});

scene('object-background', small, (c) => {
  c.add(new F.Textbox('A label on a band of colour', go({ ...topLeft, left: 40, top: 40, width: 420, fontSize: 40, backgroundColor: '#ffe8a3' })));
  c.add(new F.Circle({ left: 600, top: 160, radius: 90, fill: '#2a9d8f', stroke: '#264653', strokeWidth: 10, backgroundColor: 'rgba(231, 111, 81, 0.6)', angle: 30 }));
  c.add(new F.IText('Turned', go({ left: 260, top: 400, fontSize: 72, backgroundColor: '#cdeac0', angle: -12, fill: '#1d3557' })));
});

scene('text-styles', small, (c) => {
  const mixed = 'Mixed styles in one line\nand a second one here';
  const t = new F.IText(mixed, go({ ...topLeft, left: 40, top: 60, fontSize: 48 }));
  t.setSelectionStyles({ fill: '#e63946' }, ...span(mixed, 'Mixed'));
  t.setSelectionStyles({ fontWeight: 'bold' }, ...span(mixed, 'styles'));
  t.setSelectionStyles({ fontSize: 72, fill: '#457b9d' }, ...span(mixed, 'in'));
  t.setSelectionStyles({ underline: true }, ...span(mixed, 'one line'));
  t.setSelectionStyles({ fontStyle: 'italic', fill: '#2a9d8f' }, ...span(mixed, 'second'));
  t.setSelectionStyles({ fontFamily: 'Go-Mono', linethrough: true }, ...span(mixed, 'here'));
  c.add(t);
  const wrapped = 'A textbox whose styled words wrap across lines at its width';
  const tb = new F.Textbox(wrapped, go({ ...topLeft, left: 40, top: 300, width: 520, fontSize: 40 }));
  tb.setSelectionStyles({ fill: '#f77f00', fontWeight: 'bold' }, ...span(wrapped, 'styled words'));
  tb.setSelectionStyles({ fontSize: 56 }, ...span(wrapped, 'wrap'));
  c.add(tb);
});

scene('textbox-wrap', small, (c) => {
  const words = 'The quick brown fox jumps over the lazy dog, then rests in the shade of an old oak tree.';
  c.add(new F.Rect({ ...topLeft, left: 30, top: 30, width: 360, height: 500, fill: '#fff3e0', strokeWidth: 0 }));
  c.add(new F.Textbox(words, go({ ...topLeft, left: 30, top: 30, width: 360, fontSize: 40 })));
  c.add(new F.Rect({ ...topLeft, left: 430, top: 30, width: 340, height: 500, fill: '#e3f2fd', strokeWidth: 0 }));
  c.add(new F.Textbox(words, go({ ...topLeft, left: 430, top: 30, width: 340, fontSize: 34, textAlign: 'center', lineHeight: 1.3, fontFamily: 'Go-Mono' })));
});

scene('itext-multiline', small, (c) => {
  c.add(new F.IText('First line\nsecond, longer line\n\nfourth after a blank', go({ left: 400, top: 280, fontSize: 50, textAlign: 'center', angle: 5, fill: '#240046' })));
  c.add(new F.IText('right\naligned text', go({ originX: 'right', originY: 'top', left: 780, top: 20, fontSize: 36, textAlign: 'right', fontFamily: 'Go-Medium' })));
});

// ---- images

scene('image-jpeg', small, async (c) => {
  c.add(await photo({ ...topLeft, left: 0, top: 0, scaleX: 0.6, scaleY: 0.6 }));
  c.add(await photo({ left: 600, top: 380, scaleX: 0.5, scaleY: 0.5, angle: 12, stroke: '#fff', strokeWidth: 12 }));
});

scene('image-png-alpha', small, async (c) => {
  c.backgroundColor = '#ffe066';
  c.add(new F.Rect({ ...topLeft, left: 0, top: 280, width: 800, height: 280, fill: '#247ba0', strokeWidth: 0 }));
  c.add(await badge({ left: 220, top: 280, scaleX: 2, scaleY: 2 }));
  c.add(await badge({ left: 600, top: 280, scaleX: 1.2, scaleY: 1.2, opacity: 0.6, angle: 45 }));
});

scene('image-crop', small, async (c) => {
  c.add(await photo({ ...topLeft, left: 20, top: 20, cropX: 350, cropY: 30, width: 200, height: 180, scaleX: 1.5, scaleY: 1.5 }));
  c.add(await photo({ ...topLeft, left: 360, top: 20, cropX: 0, cropY: 250, width: 400, height: 150, strokeWidth: 0 }));
  c.add(await photo({ left: 560, top: 400, cropX: 100, cropY: 100, width: 300, height: 200, scaleX: 0.9, scaleY: 0.9, angle: -8, flipX: true }));
});

scene('image-grayscale', small, async (c) => {
  const grey = await photo({ ...topLeft, left: 20, top: 20, scaleX: 0.6, scaleY: 0.6 });
  grey.filters = [new F.filters.Grayscale()];
  grey.applyFilters();
  c.add(grey);
  const lum = await photo({ ...topLeft, left: 420, top: 20, scaleX: 0.6, scaleY: 0.6 });
  lum.filters = [new F.filters.Grayscale({ mode: 'luminosity' })];
  lum.applyFilters();
  c.add(lum);
  c.add(await photo({ ...topLeft, left: 220, top: 300, scaleX: 0.6, scaleY: 0.6 }));
});

scene('image-transform', small, async (c) => {
  c.add(await photo({ left: 200, top: 150, scaleX: 0.5, scaleY: 0.5, flipY: true }));
  c.add(await photo({ left: 600, top: 150, scaleX: 0.5, scaleY: 0.3, skewX: 20 }));
  c.add(await badge({ originX: 'right', originY: 'bottom', left: 780, top: 540, scaleX: 1, scaleY: 1 }));
  c.add(await photo({ left: 250, top: 400, scaleX: 0.45, scaleY: 0.45, angle: 170, opacity: 0.7 }));
});

// ---- customisers' pieces of work

scene('mug-wrap', { w: 200, h: 85, bleed: 2, cw: 1000, ch: 425 }, async (c) => {
  c.backgroundColor = '#fdf0d5';
  c.add(await photo({ ...topLeft, left: 20, top: 20, scaleX: 385 / 400, scaleY: 385 / 400 }));
  c.add(new F.Rect({ ...topLeft, left: 640, top: 0, width: 360, height: 425, fill: linear('percentage', { x1: 0, y1: 0, x2: 1, y2: 0 }, stops('#fdf0d5', '#c1121f')), strokeWidth: 0 }));
  c.add(new F.IText('Grandma', go({ left: 810, top: 170, fontSize: 76, fontWeight: 'bold', fill: '#003049', angle: -4 })));
  c.add(new F.IText('best since 1952', go({ left: 820, top: 270, fontSize: 40, fontStyle: 'italic', fill: '#780000' })));
});

scene('tshirt-print', { w: 160, h: 200, bleed: 0, cw: 800, ch: 1000 }, async (c) => {
  const pic = await photo({ left: 400, top: 330, scaleX: 1.3, scaleY: 1.3 });
  pic.clipPath = new F.Circle({ radius: 250, left: 400, top: 330, absolutePositioned: true });
  c.add(pic);
  // The badge: a ring, a banner path across it and its text.
  c.add(new F.Circle({ left: 400, top: 330, radius: 262, fill: '', stroke: '#14213d', strokeWidth: 20 }));
  c.add(new F.Path('M 0 40 L 40 0 L 560 0 L 600 40 L 560 80 L 40 80 z', { left: 400, top: 640, fill: '#fca311', stroke: '#14213d', strokeWidth: 8 }));
  c.add(new F.FabricText('TEAM ALPINE', go({ left: 400, top: 640, fontSize: 64, fontWeight: 'bold', fill: '#14213d', charSpacing: 120 })));
  c.add(new F.Textbox('Summit tour 2025', go({ left: 400, top: 800, width: 600, fontSize: 56, textAlign: 'center', fontStyle: 'italic', fill: '#14213d' })));
  c.add(await badge({ left: 620, top: 120, scaleX: 0.8, scaleY: 0.8, angle: 15 }));
});

scene('business-card', { w: 85, h: 55, bleed: 2, cw: 850, ch: 550, surfaces: ['front', 'back'] }, async (c) => {
  c.backgroundColor = '#ffffff';
  c.add(new F.Rect({ ...topLeft, left: -30, top: -30, width: 300, height: 610, fill: '#0a9396', strokeWidth: 0 }));
  c.add(await badge({ left: 135, top: 275, scaleX: 0.9, scaleY: 0.9 }));
  c.add(new F.FabricText('Ada Lovelace', go({ ...topLeft, left: 320, top: 80, fontSize: 56, fontWeight: 'bold', fill: '#001219' })));
  c.add(new F.FabricText('Analytical Engines Ltd', go({ ...topLeft, left: 320, top: 160, fontSize: 32, fontStyle: 'italic', fill: '#005f73' })));
  c.add(new F.Line([320, 230, 800, 230], { stroke: '#ee9b00', strokeWidth: 4 }));
  c.add(new F.Textbox('+44 20 7946 0000\nada@engines.example\n12 Byron Street, London', go({ ...topLeft, left: 320, top: 270, width: 480, fontSize: 30, lineHeight: 1.4, fontFamily: 'Go-Mono' })));
}, async (c) => {
  c.backgroundColor = '#0a9396';
  c.add(await badge({ left: 425, top: 230, scaleX: 1.2, scaleY: 1.2 }));
  c.add(new F.FabricText('engines.example', go({ left: 425, top: 450, fontSize: 40, fill: '#e9d8a6', charSpacing: 100 })));
});

scene('sticker-sheet', { w: 150, h: 100, bleed: 2, cw: 900, ch: 600 }, (c) => {
  const colours = ['#ef476f', '#ffd166', '#06d6a0', '#118ab2', '#073b4c', '#8338ec'];
  const words = ['Yes!', 'Wow', 'Hi', 'OK', 'Cool', 'Go'];
  for (let i = 0; i < 12; i++) {
    const x = 110 + (i % 4) * 225, y = 110 + Math.floor(i / 4) * 190, fill = colours[i % 6];
    const shape = i % 2
      ? new F.Rect({ left: x, top: y, width: 180, height: 150, rx: 28, ry: 28, fill, stroke: '#fff', strokeWidth: 8 })
      : new F.Circle({ left: x, top: y, radius: 80, fill, stroke: '#fff', strokeWidth: 8 });
    c.add(shape);
    c.add(new F.FabricText(words[i % 6], go({ left: x, top: y, fontSize: 44, fontWeight: 'bold', fill: i % 6 === 1 ? '#073b4c' : '#ffffff' })));
  }
  c.backgroundColor = '#edf2f4';
});

scene('invitation', { w: 105, h: 148, bleed: 3, cw: 630, ch: 888 }, (c) => {
  c.backgroundColor = '#fffaf0';
  c.add(new F.Rect({ left: 315, top: 444, width: 570, height: 828, fill: '', stroke: '#b08968', strokeWidth: 3 }));
  c.add(new F.Rect({ left: 315, top: 444, width: 550, height: 808, fill: '', stroke: '#b08968', strokeWidth: 1, strokeDashArray: [8, 6] }));
  c.add(new F.FabricText('You are invited', go({ left: 315, top: 110, fontSize: 40, fontStyle: 'italic', fill: '#7f5539' })));
  const names = new F.Textbox('Emma & James', go({ left: 315, top: 220, width: 520, fontSize: 64, textAlign: 'center', fontWeight: 'bold', fill: '#582f0e' }));
  names.setSelectionStyles({ fill: '#b08968', fontStyle: 'italic', fontWeight: 'normal' }, ...span('Emma & James', '&'));
  c.add(names);
  c.add(new F.Path('M 0 10 Q 50 -10 100 10 T 200 10', { left: 315, top: 300, fill: '', stroke: '#b08968', strokeWidth: 3 }));
  const invite = 'request the pleasure of your company at the celebration of their marriage on Saturday, the fourteenth of June, at three o\'clock in the afternoon.\nThe Old Mill, Riverside Lane';
  const body = new F.Textbox(invite, go({ left: 315, top: 520, width: 500, fontSize: 28, lineHeight: 1.4, textAlign: 'center', fill: '#3e2723' }));
  body.setSelectionStyles({ fontWeight: 'bold' }, ...span(invite, 'Saturday, the fourteenth of June'));
  body.setSelectionStyles({ underline: true, fill: '#7f5539' }, ...span(invite, 'The Old Mill'));
  c.add(body);
  c.add(new F.FabricText('RSVP by 1 May', go({ left: 315, top: 780, fontSize: 30, charSpacing: 200, fontFamily: 'Go-Smallcaps', fill: '#7f5539' })));
});

// ---- earlier fabric versions' JSON (generate.js converts these from 7.4.0's)

scene('v5-shapes', { ...small, legacy: 5 }, (c) => {
  c.backgroundColor = '#f8f9fa';
  c.add(new F.Rect({ ...topLeft, left: 40, top: 40, width: 300, height: 200, rx: 20, ry: 20, fill: linear('pixels', { x1: 0, y1: 0, x2: 300, y2: 0 }, stops('#4361ee', '#f72585')), stroke: '#000', strokeWidth: 4 }));
  c.add(new F.Circle({ ...topLeft, left: 400, top: 40, radius: 80, fill: '#4cc9f0', stroke: '#3a0ca3', strokeWidth: 8, strokeDashArray: [20, 10] }));
  // Degrees, as since fabric 5.0 (radians until 4.x).
  c.add(new F.Circle({ ...topLeft, left: 600, top: 40, radius: 90, startAngle: 0, endAngle: 180, fill: '#3a0ca3', strokeWidth: 0 }));
  c.add(new F.Ellipse({ ...topLeft, left: 40, top: 300, rx: 150, ry: 90, fill: 'rgba(114, 9, 183, 0.6)', angle: 10, strokeWidth: 0 }));
  c.add(new F.Path('M 0 0 C 60 -80 140 80 200 0 L 200 100 L 0 100 z', { ...topLeft, left: 440, top: 330, fill: '#f72585', strokeWidth: 0, scaleX: 1.3 }));
  c.add(new F.Line([400, 520, 760, 520], { ...topLeft, stroke: '#3f37c9', strokeWidth: 10, strokeLineCap: 'round' }));
});

scene('v5-text', { ...small, legacy: 5 }, (c) => {
  const five = 'Styled in fabric 5\nper-character styles';
  const t = new F.IText(five, go({ ...topLeft, left: 40, top: 40, fontSize: 52 }));
  t.setSelectionStyles({ fill: '#d00000', fontWeight: 'bold' }, ...span(five, 'Styled'));
  t.setSelectionStyles({ fontSize: 70, underline: true }, ...span(five, 'fabric'));
  t.setSelectionStyles({ fill: '#3f88c5', fontStyle: 'italic' }, ...span(five, 'character styles'));
  c.add(t);
  const box = 'A wrapped textbox saved by fabric five, centred';
  const tb = new F.Textbox(box, go({ ...topLeft, left: 40, top: 280, width: 460, fontSize: 40, textAlign: 'center', lineHeight: 1.2 }));
  tb.setSelectionStyles({ fill: '#136f63', fontWeight: 'bold' }, ...span(box, 'wrapped'));
  c.add(tb);
  c.add(new F.FabricText('plain text', go({ ...topLeft, left: 560, top: 460, fontSize: 40, angle: -30, fontFamily: 'Go-Mono' })));
});

scene('v5-group-image', { ...small, legacy: 5 }, async (c) => {
  const g = new F.Group([
    await photo({ ...topLeft, left: 0, top: 0, scaleX: 0.7, scaleY: 0.7, cropX: 50, cropY: 20, width: 500, height: 360 }),
    new F.Rect({ ...topLeft, left: 0, top: 200, width: 350, height: 52, fill: 'rgba(0, 0, 0, 0.5)', strokeWidth: 0 }),
    new F.FabricText('Lake view', go({ ...topLeft, left: 20, top: 204, fontSize: 40, fill: '#fff' })),
  ], { ...topLeft, left: 40, top: 40, angle: 5 });
  c.add(g);
  const b = await badge({ ...topLeft, left: 520, top: 300, scaleX: 1.1, scaleY: 1.1 });
  b.clipPath = new F.Circle({ radius: 80, originX: 'center', originY: 'center', left: 0, top: 0 });
  c.add(b);
});

scene('v6-shapes', { ...small, legacy: 6 }, (c) => {
  c.backgroundColor = '#fefae0';
  c.add(new F.Rect({ ...topLeft, left: 40, top: 40, width: 300, height: 200, rx: 30, ry: 30, fill: radial('pixels', { x1: 150, y1: 100, r1: 0, x2: 150, y2: 100, r2: 180 }, stops('#ffffff', '#bc6c25')), strokeWidth: 0 }));
  c.add(new F.Triangle({ ...topLeft, left: 420, top: 40, width: 300, height: 200, fill: '#606c38', stroke: '#283618', strokeWidth: 6, skewX: 10 }));
  c.add(new F.Polyline([{ x: 0, y: 0 }, { x: 100, y: 100 }, { x: 200, y: 0 }, { x: 300, y: 100 }], { ...topLeft, left: 40, top: 320, fill: '', stroke: '#dda15e', strokeWidth: 12, strokeLineJoin: 'round' }));
  c.add(new F.Circle({ ...topLeft, left: 480, top: 300, radius: 100, startAngle: 45, endAngle: 315, fill: '#bc6c25', strokeWidth: 0 }));
});

scene('v6-text', { ...small, legacy: 6 }, (c) => {
  const six = 'Fabric six saved these styles as ranges over a wrapped textbox';
  const t = new F.Textbox(six, go({ ...topLeft, left: 40, top: 40, width: 700, fontSize: 46 }));
  t.setSelectionStyles({ fill: '#9b2226', fontWeight: 'bold' }, ...span(six, 'Fabric six'));
  t.setSelectionStyles({ underline: true, fontSize: 60 }, ...span(six, 'styles'));
  t.setSelectionStyles({ fill: '#0a9396', fontStyle: 'italic' }, ...span(six, 'wrapped'));
  c.add(t);
  c.add(new F.IText('two\nlines', go({ ...topLeft, left: 500, top: 320, fontSize: 60, textAlign: 'right', linethrough: true, fill: '#005f73' })));
  c.add(new F.FabricText('spaced', go({ ...topLeft, left: 40, top: 400, fontSize: 60, charSpacing: 250, fontWeight: 'bold' })));
});

scene('v6-group', { ...small, legacy: 6 }, async (c) => {
  const inner = new F.Group([
    new F.Circle({ left: 0, top: 0, radius: 60, fill: '#ae2012', strokeWidth: 0 }),
    new F.FabricText('6', go({ left: 0, top: 0, fontSize: 70, fill: '#fff' })),
  ], { angle: -15 });
  const g = new F.Group([
    new F.Rect({ left: 0, top: 0, width: 420, height: 260, fill: '#e9d8a6', stroke: '#001219', strokeWidth: 4 }),
    inner,
    new F.Rect({ left: 130, top: 60, width: 100, height: 60, fill: '#94d2bd', strokeWidth: 0, angle: 30 }),
  ], { ...topLeft, left: 40, top: 40, scaleX: 1.2 });
  c.add(g);
  const img = await photo({ ...topLeft, left: 560, top: 340, scaleX: 0.35, scaleY: 0.35 });
  img.filters = [new F.filters.Grayscale()];
  img.applyFilters();
  c.add(img);
});
