import type { Box } from "./layout.js";

/** A point in SVG user units. */
export interface Point {
  readonly x: number;
  readonly y: number;
}

/** An edge's drawing: its SVG path and where its label goes (the label's first line is centered there). */
export interface EdgeShape {
  readonly d: string;
  readonly label: Point;
}

const center = (box: Box): Point => ({ x: box.x + box.width / 2, y: box.y + box.height / 2 });

/** Where the ray from the box's center towards `toward` leaves the box. */
function borderPoint(box: Box, toward: Point): Point {
  const c = center(box);
  const dx = toward.x - c.x;
  const dy = toward.y - c.y;
  if (dx === 0 && dy === 0) return c;
  const scale = Math.min(
    dx === 0 ? Number.POSITIVE_INFINITY : box.width / 2 / Math.abs(dx),
    dy === 0 ? Number.POSITIVE_INFINITY : box.height / 2 / Math.abs(dy),
  );
  return { x: c.x + dx * scale, y: c.y + dy * scale };
}

const fmt = (n: number) => Math.round(n * 10) / 10;

/**
 * A quadratic curve from box to box, bent sideways by `bend` units (0 for a straight line) so
 * that several edges between the same two states stay apart; the label sits on the curve's middle.
 */
export function curve(from: Box, to: Box, bend: number): EdgeShape {
  const start = borderPoint(from, center(to));
  const end = borderPoint(to, center(from));
  const length = Math.hypot(end.x - start.x, end.y - start.y) || 1;
  const normal = { x: -(end.y - start.y) / length, y: (end.x - start.x) / length };
  const middle = { x: (start.x + end.x) / 2, y: (start.y + end.y) / 2 };
  // A quadratic curve passes halfway to its control point: bend it by `bend` at its middle.
  const control = { x: middle.x + normal.x * bend * 2, y: middle.y + normal.y * bend * 2 };
  const label = { x: middle.x + normal.x * bend, y: middle.y + normal.y * bend };
  return {
    d: `M${fmt(start.x)},${fmt(start.y)} Q${fmt(control.x)},${fmt(control.y)} ${fmt(end.x)},${fmt(end.y)}`,
    label,
  };
}

/** A back edge over the top of the chart: up from the source, along lane `y`, down into the target. */
export function overTheTop(from: Box, to: Box, laneY: number): EdgeShape {
  const sx = from.x + from.width * 0.5;
  const tx = to.x + to.width * 0.5;
  const r = 10;
  const dir = tx < sx ? -1 : 1;
  const d = [
    `M${fmt(sx)},${fmt(from.y)}`,
    `L${fmt(sx)},${fmt(laneY + r)}`,
    `Q${fmt(sx)},${fmt(laneY)} ${fmt(sx + dir * r)},${fmt(laneY)}`,
    `L${fmt(tx - dir * r)},${fmt(laneY)}`,
    `Q${fmt(tx)},${fmt(laneY)} ${fmt(tx)},${fmt(laneY + r)}`,
    `L${fmt(tx)},${fmt(to.y)}`,
  ].join(" ");
  return { d, label: { x: (sx + tx) / 2, y: laneY - 6 } };
}
