/**
 * How the lines of a chart differ: each has a colour (--series-1 … --series-6 in charts.css) and a
 * dash, so they differ by more than colour. Lines after the sixth share them again (the legend and the
 * table tell them apart). Kept apart from uPlot so a legend can use them without loading it.
 */
export const LINE_DASHES: number[][] = [[], [8, 4], [2, 3], [10, 3, 2, 3], [14, 4], [2, 3, 2, 3, 8, 3]];

export const lineStyle = (i: number) => ({ colour: `--series-${(i % LINE_DASHES.length) + 1}`, dash: LINE_DASHES[i % LINE_DASHES.length]! });
