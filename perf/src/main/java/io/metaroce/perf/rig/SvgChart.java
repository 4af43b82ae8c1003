/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.perf.rig;

import java.util.List;
import java.util.Locale;

/**
 * Minimal SVG charts for the reports, so that a results folder can be looked at in a browser without any tool:
 * latency against percentile (log scale of 1 / (1 - p), as HdrHistogram plots are drawn), grouped bars, and a
 * value over time with a marker (goodput around a failure).
 */
final class SvgChart
{
    /**
     * One line of a percentile chart.
     *
     * @param label       legend text.
     * @param percentiles x values, 0-100.
     * @param valuesUs    y values in microseconds.
     */
    record Series(String label, double[] percentiles, double[] valuesUs)
    {
    }

    /**
     * One line of a time series.
     *
     * @param label  legend text.
     * @param x      x values (time), ascending.
     * @param y      y values.
     */
    record Line(String label, double[] x, double[] y)
    {
    }

    /**
     * One group of bars.
     *
     * @param label  group label under the bars.
     * @param values one value per bar label.
     */
    record BarGroup(String label, double[] values)
    {
    }

    private static final String[] COLOURS =
        {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
    private static final int WIDTH = 760;
    private static final int HEIGHT = 420;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;
    private static final double[] PERCENTILE_TICKS = {0, 90, 99, 99.9, 99.99, 99.999};

    private SvgChart()
    {
    }

    static String percentiles(final String title, final List<Series> series)
    {
        double maxY = 1;
        for (final Series s : series)
        {
            for (final double v : s.valuesUs())
            {
                maxY = Math.max(maxY, v);
            }
        }

        final double maxX = x(99.999);
        final double logMaxY = Math.log10(maxY * 2);
        final double logMinY = Math.log10(0.05);
        final StringBuilder svg = header(title);

        for (final double tick : PERCENTILE_TICKS)
        {
            final double px = LEFT + x(tick) / maxX * plotWidth();
            line(svg, px, TOP, px, TOP + plotHeight(), "#ddd");
            text(svg, px, HEIGHT - BOTTOM + 18, "middle", format(tick) + "%");
        }

        for (double decade = Math.pow(10, Math.floor(logMinY)); decade <= maxY * 2; decade *= 10)
        {
            final double py = yLog(decade, logMinY, logMaxY);
            if (py >= TOP && py <= TOP + plotHeight())
            {
                line(svg, LEFT, py, LEFT + plotWidth(), py, "#ddd");
                text(svg, LEFT - 6, py + 4, "end", format(decade));
            }
        }
        text(svg, LEFT + plotWidth() / 2.0, HEIGHT - 18, "middle", "percentile");
        text(svg, 16, TOP + plotHeight() / 2.0, "middle", "round trip (µs, log)", -90);

        for (int i = 0; i < series.size(); i++)
        {
            final Series s = series.get(i);
            final String colour = COLOURS[i % COLOURS.length];
            svg.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(colour).append("\" points=\"");
            for (int j = 0; j < s.percentiles().length; j++)
            {
                final double px = LEFT + Math.min(x(s.percentiles()[j]), maxX) / maxX * plotWidth();
                final double py = yLog(Math.max(s.valuesUs()[j], 0.05), logMinY, logMaxY);
                svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
            }
            svg.append("\"/>\n");
            legend(svg, i, s.label(), colour);
        }

        return svg.append("</svg>\n").toString();
    }

    static String bars(
        final String title, final String yLabel, final List<String> barLabels, final List<BarGroup> groups)
    {
        double maxY = 1;
        for (final BarGroup group : groups)
        {
            for (final double v : group.values())
            {
                maxY = Math.max(maxY, v);
            }
        }
        maxY *= 1.1;

        final StringBuilder svg = header(title);
        for (int tick = 0; tick <= 5; tick++)
        {
            final double value = maxY * tick / 5;
            final double py = TOP + plotHeight() - value / maxY * plotHeight();
            line(svg, LEFT, py, LEFT + plotWidth(), py, "#ddd");
            text(svg, LEFT - 6, py + 4, "end", format(value));
        }
        text(svg, 16, TOP + plotHeight() / 2.0, "middle", yLabel, -90);

        final double groupWidth = plotWidth() / (double)Math.max(1, groups.size());
        final double barWidth = groupWidth * 0.8 / Math.max(1, barLabels.size());
        for (int g = 0; g < groups.size(); g++)
        {
            final BarGroup group = groups.get(g);
            final double x0 = LEFT + g * groupWidth + groupWidth * 0.1;
            for (int b = 0; b < group.values().length; b++)
            {
                final double h = group.values()[b] / maxY * plotHeight();
                svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                    x0 + b * barWidth, TOP + plotHeight() - h, barWidth * 0.9, h, COLOURS[b % COLOURS.length]));
            }
            text(svg, x0 + groupWidth * 0.4, HEIGHT - BOTTOM + 18, "middle", group.label());
        }

        for (int b = 0; b < barLabels.size(); b++)
        {
            legend(svg, b, barLabels.get(b), COLOURS[b % COLOURS.length]);
        }

        return svg.append("</svg>\n").toString();
    }

    static String timeSeries(final String title, final String yLabel, final List<Line> lines, final double markerX)
    {
        double maxX = Math.max(1, markerX);
        double maxY = 1;
        for (final Line line : lines)
        {
            for (int i = 0; i < line.x().length; i++)
            {
                maxX = Math.max(maxX, line.x()[i]);
                maxY = Math.max(maxY, line.y()[i]);
            }
        }
        maxY *= 1.1;

        final StringBuilder svg = header(title);
        for (int tick = 0; tick <= 5; tick++)
        {
            final double value = maxY * tick / 5;
            final double py = TOP + plotHeight() - value / maxY * plotHeight();
            line(svg, LEFT, py, LEFT + plotWidth(), py, "#ddd");
            text(svg, LEFT - 6, py + 4, "end", format(value));
            final double time = maxX * tick / 5;
            text(svg, LEFT + time / maxX * plotWidth(), HEIGHT - BOTTOM + 18, "middle", format(time));
        }
        text(svg, LEFT + plotWidth() / 2.0, HEIGHT - 18, "middle", "time (ms)");
        text(svg, 16, TOP + plotHeight() / 2.0, "middle", yLabel, -90);
        final double markerPx = LEFT + markerX / maxX * plotWidth();
        line(svg, markerPx, TOP, markerPx, TOP + plotHeight(), "#d62728");

        for (int i = 0; i < lines.size(); i++)
        {
            final Line l = lines.get(i);
            final String colour = COLOURS[i % COLOURS.length];
            svg.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(colour).append("\" points=\"");
            for (int j = 0; j < l.x().length; j++)
            {
                svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + l.x()[j] / maxX * plotWidth(),
                    TOP + plotHeight() - l.y()[j] / maxY * plotHeight()));
            }
            svg.append("\"/>\n");
            legend(svg, i, l.label(), colour);
        }

        return svg.append("</svg>\n").toString();
    }

    private static StringBuilder header(final String title)
    {
        final StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" " +
            "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", WIDTH, HEIGHT));
        text(svg, WIDTH / 2.0, 22, "middle", title);
        svg.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
            LEFT, TOP, plotWidth(), plotHeight()));
        return svg;
    }

    private static void legend(final StringBuilder svg, final int index, final String label, final String colour)
    {
        final double y = TOP + 14 + index * 16;
        svg.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"4\" fill=\"%s\"/>\n", LEFT + 10, y - 4, colour));
        text(svg, LEFT + 28, y, "start", label);
    }

    private static void line(
        final StringBuilder svg,
        final double x1,
        final double y1,
        final double x2,
        final double y2,
        final String colour)
    {
        svg.append(String.format(Locale.ROOT,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x1, y1, x2, y2, colour));
    }

    private static void text(
        final StringBuilder svg, final double x, final double y, final String anchor, final String s)
    {
        text(svg, x, y, anchor, s, 0);
    }

    private static void text(
        final StringBuilder svg, final double x, final double y, final String anchor, final String s, final int rotate)
    {
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x, y, anchor));
        if (0 != rotate)
        {
            svg.append(String.format(Locale.ROOT, " transform=\"rotate(%d %.1f %.1f)\"", rotate, x, y));
        }
        svg.append('>').append(s.replace("&", "&amp;").replace("<", "&lt;")).append("</text>\n");
    }

    private static double x(final double percentile)
    {
        return Math.log10(1.0 / (1.0 - Math.min(percentile, 99.9999) / 100.0));
    }

    private static double yLog(final double value, final double logMin, final double logMax)
    {
        return TOP + plotHeight() - (Math.log10(value) - logMin) / (logMax - logMin) * plotHeight();
    }

    private static int plotWidth()
    {
        return WIDTH - LEFT - RIGHT;
    }

    private static int plotHeight()
    {
        return HEIGHT - TOP - BOTTOM;
    }

    private static String format(final double value)
    {
        if (value >= 100 || value == Math.rint(value))
        {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return String.format(Locale.ROOT, value >= 1 ? "%.1f" : "%.2f", value);
    }
}
