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

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Minimal SVG charts for the reports, so that a results folder can be looked at in a browser without any tool:
 * latency against percentile (log scale of 1 / (1 - p), as HdrHistogram plots are drawn), grouped bars, and a
 * value over time with a marker (goodput around a failure).
 * <p>
 * Every chart has the same frame: the plot area on the left and the legend in a box to its right, outside the plot
 * area, so that no legend entry hides a curve. Value axes carry "nice" ticks: powers of ten (1-2-5 steps when the
 * range spans at most two decades) with the unit in each label on the latency axis, 1-2-5 steps from zero on linear
 * axes. Percentile ticks are labelled exactly (50%, 99.9%, 99.999%). The plot area is the {@code rect} of class
 * {@code plot-area}, the legend box the {@code rect} of class {@code legend}; tick labels are {@code text} elements of
 * class {@code x-tick} and {@code y-tick}.
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

    /**
     * A tick of an axis.
     *
     * @param value where the tick is, in the axis' own unit.
     * @param label what is written beside it.
     */
    record Tick(double value, String label)
    {
    }

    /**
     * A rectangle of the drawing, in pixels from the top left corner.
     *
     * @param x      left edge.
     * @param y      top edge.
     * @param width  width.
     * @param height height.
     */
    record Box(double x, double y, double width, double height)
    {
        /**
         * Whether the two rectangles share any area (touching edges do not count).
         *
         * @param other the other rectangle.
         * @return true when they overlap.
         */
        boolean overlaps(final Box other)
        {
            return x < other.x + other.width && other.x < x + width &&
                y < other.y + other.height && other.y < y + height;
        }
    }

    private static final String[] COLOURS =
        {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
    private static final int PLOT_WIDTH = 620;
    private static final int PLOT_HEIGHT = 320;
    private static final int LEFT = 90;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;
    private static final int MARGIN = 16;
    private static final int LEGEND_ROW = 16;
    private static final int LEGEND_SWATCH = 24;
    // An upper bound of the width of one character of the 12 px sans-serif font, so that the legend box holds its text.
    private static final double CHARACTER_WIDTH = 7.5;
    private static final int LINEAR_TICKS = 5;
    private static final int MOST_NINES = 6;
    // Histograms record nanoseconds: nothing below one is drawn on a log axis in microseconds.
    private static final double SMALLEST_US = 0.001;

    /**
     * Where the parts of one chart go.
     *
     * @param plot   the plot area.
     * @param legend the legend box, to the right of the plot area.
     * @param width  of the whole drawing.
     * @param height of the whole drawing.
     */
    private record Frame(Box plot, Box legend, int width, int height)
    {
    }

    private SvgChart()
    {
    }

    static String percentiles(final String title, final List<Series> series)
    {
        double maxPercentile = 0;
        double minY = Double.MAX_VALUE;
        double maxY = SMALLEST_US;
        for (final Series s : series)
        {
            for (int i = 0; i < s.valuesUs().length; i++)
            {
                maxPercentile = Math.max(maxPercentile, s.percentiles()[i]);
                minY = Math.min(minY, Math.max(s.valuesUs()[i], SMALLEST_US));
                maxY = Math.max(maxY, s.valuesUs()[i]);
            }
        }

        final Frame frame = frame(series.stream().map(Series::label).toList());
        final Box plot = frame.plot();
        final StringBuilder svg = header(title, frame);
        final List<Tick> xTicks = percentileTicks(maxPercentile);
        final double maxX = x(xTicks.get(xTicks.size() - 1).value());
        for (final Tick tick : xTicks)
        {
            final double px = plot.x() + x(tick.value()) / maxX * plot.width();
            line(svg, px, plot.y(), px, plot.y() + plot.height(), "#ddd");
            text(svg, "x-tick", px, plot.y() + plot.height() + 18, "middle", tick.label(), 0);
        }

        final List<Tick> yTicks = latencyTicks(Math.min(minY, maxY), maxY);
        final double logMin = Math.log10(yTicks.get(0).value());
        final double logMax = Math.log10(yTicks.get(yTicks.size() - 1).value());
        for (final Tick tick : yTicks)
        {
            final double py = yLog(plot, tick.value(), logMin, logMax);
            line(svg, plot.x(), py, plot.x() + plot.width(), py, "#ddd");
            text(svg, "y-tick", plot.x() - 6, py + 4, "end", tick.label(), 0);
        }
        xTitle(svg, frame, "percentile (log scale of 1 / (1 - p))");
        yTitle(svg, frame, "round trip (log scale)");

        for (int i = 0; i < series.size(); i++)
        {
            final Series s = series.get(i);
            final String colour = COLOURS[i % COLOURS.length];
            polylineStart(svg, colour);
            for (int j = 0; j < s.percentiles().length; j++)
            {
                final double px = plot.x() + Math.min(x(s.percentiles()[j]), maxX) / maxX * plot.width();
                final double py = yLog(plot, Math.max(s.valuesUs()[j], SMALLEST_US), logMin, logMax);
                svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
            }
            svg.append("\"/>\n");
        }
        legend(svg, frame, series.stream().map(Series::label).toList());

        return svg.append("</svg>\n").toString();
    }

    static String bars(
        final String title, final String yLabel, final List<String> barLabels, final List<BarGroup> groups)
    {
        double maxY = 0;
        for (final BarGroup group : groups)
        {
            for (final double v : group.values())
            {
                maxY = Math.max(maxY, v);
            }
        }

        final Frame frame = frame(barLabels);
        final Box plot = frame.plot();
        final StringBuilder svg = header(title, frame);
        final List<Tick> yTicks = linearTicks(maxY);
        final double top = yTicks.get(yTicks.size() - 1).value();
        for (final Tick tick : yTicks)
        {
            final double py = yLinear(plot, tick.value(), top);
            line(svg, plot.x(), py, plot.x() + plot.width(), py, "#ddd");
            text(svg, "y-tick", plot.x() - 6, py + 4, "end", tick.label(), 0);
        }
        yTitle(svg, frame, yLabel);

        final double groupWidth = plot.width() / Math.max(1, groups.size());
        final double barWidth = groupWidth * 0.8 / Math.max(1, barLabels.size());
        for (int g = 0; g < groups.size(); g++)
        {
            final BarGroup group = groups.get(g);
            final double x0 = plot.x() + g * groupWidth + groupWidth * 0.1;
            for (int b = 0; b < group.values().length; b++)
            {
                final double h = plot.y() + plot.height() - yLinear(plot, group.values()[b], top);
                svg.append(String.format(Locale.ROOT,
                    "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                    x0 + b * barWidth, plot.y() + plot.height() - h, barWidth * 0.9, h, COLOURS[b % COLOURS.length]));
            }
            text(svg, "x-tick", x0 + groupWidth * 0.4, plot.y() + plot.height() + 18, "middle", group.label(), 0);
        }
        legend(svg, frame, barLabels);

        return svg.append("</svg>\n").toString();
    }

    static String timeSeries(final String title, final String yLabel, final List<Line> lines, final double markerX)
    {
        double maxX = markerX;
        double maxY = 0;
        for (final Line line : lines)
        {
            for (int i = 0; i < line.x().length; i++)
            {
                maxX = Math.max(maxX, line.x()[i]);
                maxY = Math.max(maxY, line.y()[i]);
            }
        }

        final Frame frame = frame(lines.stream().map(Line::label).toList());
        final Box plot = frame.plot();
        final StringBuilder svg = header(title, frame);
        final List<Tick> yTicks = linearTicks(maxY);
        final double top = yTicks.get(yTicks.size() - 1).value();
        for (final Tick tick : yTicks)
        {
            final double py = yLinear(plot, tick.value(), top);
            line(svg, plot.x(), py, plot.x() + plot.width(), py, "#ddd");
            text(svg, "y-tick", plot.x() - 6, py + 4, "end", tick.label(), 0);
        }
        final List<Tick> xTicks = linearTicks(maxX);
        final double right = xTicks.get(xTicks.size() - 1).value();
        for (final Tick tick : xTicks)
        {
            final double px = xLinear(plot, tick.value(), right);
            line(svg, px, plot.y(), px, plot.y() + plot.height(), "#ddd");
            text(svg, "x-tick", px, plot.y() + plot.height() + 18, "middle", tick.label(), 0);
        }
        xTitle(svg, frame, "time (ms)");
        yTitle(svg, frame, yLabel);
        final double markerPx = xLinear(plot, markerX, right);
        line(svg, markerPx, plot.y(), markerPx, plot.y() + plot.height(), "#d62728");

        for (int i = 0; i < lines.size(); i++)
        {
            final Line l = lines.get(i);
            polylineStart(svg, COLOURS[i % COLOURS.length]);
            for (int j = 0; j < l.x().length; j++)
            {
                svg.append(String.format(Locale.ROOT, "%.1f,%.1f ",
                    xLinear(plot, l.x()[j], right), yLinear(plot, l.y()[j], top)));
            }
            svg.append("\"/>\n");
        }
        legend(svg, frame, lines.stream().map(Line::label).toList());

        return svg.append("</svg>\n").toString();
    }

    /**
     * Ticks of a percentile axis: 0 %, 50 %, 90 % and then one more nine each (99 %, 99.9 % ...) until the tick
     * reaches the largest percentile plotted, at most 99.9999 %.
     *
     * @param maxPercentile the largest percentile plotted, 0-100.
     * @return the ticks, values in percent, ascending.
     */
    static List<Tick> percentileTicks(final double maxPercentile)
    {
        final List<Tick> ticks = new ArrayList<>();
        ticks.add(new Tick(0, percentileLabel(0)));
        ticks.add(new Tick(50, percentileLabel(50)));
        for (int nines = 1; nines <= MOST_NINES; nines++)
        {
            // exact decimal arithmetic, so that the tick is 99.99 and not 99.98999999999999
            final BigDecimal percentile = BigDecimal.valueOf(100).subtract(BigDecimal.ONE.scaleByPowerOfTen(2 - nines));
            ticks.add(new Tick(percentile.doubleValue(), percentileLabel(percentile.doubleValue())));
            if (percentile.doubleValue() >= maxPercentile)
            {
                break;
            }
        }
        return ticks;
    }

    /**
     * The label of a percentile: its exact decimal value with no trailing zero ({@code 99.999%}, {@code 50%}).
     *
     * @param percentile 0-100.
     * @return the label.
     */
    static String percentileLabel(final double percentile)
    {
        final BigDecimal value = BigDecimal.valueOf(percentile).stripTrailingZeros();
        return (value.signum() == 0 ? "0" : value.toPlainString()) + "%";
    }

    /**
     * Ticks of a logarithmic latency axis in microseconds: every power of ten from the one at or below the smallest
     * value to the one at or above the largest (the axis' ends), with 2 and 5 between them when the range spans at
     * most two decades; labelled with a unit chosen per tick (ns, µs, ms, s).
     *
     * @param minUs smallest value, above zero.
     * @param maxUs largest value.
     * @return the ticks, ascending; the first and the last are the ends of the axis.
     */
    static List<Tick> latencyTicks(final double minUs, final double maxUs)
    {
        final int low = (int)Math.floor(Math.log10(Math.max(minUs, SMALLEST_US)));
        final int high = Math.max(low + 1, (int)Math.ceil(Math.log10(Math.max(maxUs, SMALLEST_US))));
        final int[] steps = high - low <= 2 ? new int[]{1, 2, 5} : new int[]{1};
        final List<Tick> ticks = new ArrayList<>();
        for (int decade = low; decade <= high; decade++)
        {
            for (final int step : steps)
            {
                if (decade < high || 1 == step)
                {
                    final double value = BigDecimal.valueOf(step).scaleByPowerOfTen(decade).doubleValue();
                    ticks.add(new Tick(value, durationLabel(value)));
                }
            }
        }
        return ticks;
    }

    /**
     * A duration in microseconds in the largest unit that keeps it at 1 or more, to three significant digits
     * ({@code 200 ns}, {@code 1 µs}, {@code 2.5 ms}, {@code 1 s}).
     *
     * @param micros the duration.
     * @return the label.
     */
    static String durationLabel(final double micros)
    {
        if (micros >= 1_000_000)
        {
            return significant(micros / 1_000_000) + " s";
        }
        if (micros >= 1_000)
        {
            return significant(micros / 1_000) + " ms";
        }
        if (micros >= 1)
        {
            return significant(micros) + " µs";
        }
        return significant(micros * 1_000) + " ns";
    }

    /**
     * Ticks of a linear axis from zero: a step of 1, 2 or 5 times a power of ten that gives at most about five
     * intervals, up to the first multiple of the step at or above the largest value (the axis' end).
     *
     * @param max the largest value; zero or less gives the axis 0-1.
     * @return the ticks, ascending from 0.
     */
    static List<Tick> linearTicks(final double max)
    {
        final double end = max > 0 ? max : 1;
        final BigDecimal step = niceStep(end / LINEAR_TICKS);
        final List<Tick> ticks = new ArrayList<>();
        ticks.add(new Tick(0, numberLabel(BigDecimal.ZERO, step)));
        for (BigDecimal value = step; ticks.get(ticks.size() - 1).value() < end; value = value.add(step))
        {
            ticks.add(new Tick(value.doubleValue(), numberLabel(value, step)));
        }
        return ticks;
    }

    /**
     * The smallest of 1, 2 and 5 times a power of ten that is at least the given step.
     *
     * @param rough the step wanted, above zero.
     * @return the nice step.
     */
    static BigDecimal niceStep(final double rough)
    {
        final int exponent = (int)Math.floor(Math.log10(rough));
        final double fraction = rough / Math.pow(10, exponent);
        // the tolerance keeps a step of exactly 2 x 10^n from becoming 5 x 10^n through rounding of the division
        final double tolerance = 1e-9;
        final int mantissa = fraction <= 1 + tolerance ? 1 : fraction <= 2 + tolerance ? 2 :
            fraction <= 5 + tolerance ? 5 : 10;
        return BigDecimal.valueOf(mantissa).scaleByPowerOfTen(exponent).stripTrailingZeros();
    }

    private static String numberLabel(final BigDecimal value, final BigDecimal step)
    {
        return String.format(Locale.ROOT, "%,." + Math.max(0, step.scale()) + "f", value);
    }

    private static String significant(final double value)
    {
        return BigDecimal.valueOf(value).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }

    private static Frame frame(final List<String> legendLabels)
    {
        int longest = 0;
        for (final String label : legendLabels)
        {
            longest = Math.max(longest, label.length());
        }
        final Box plot = new Box(LEFT, TOP, PLOT_WIDTH, PLOT_HEIGHT);
        final Box legend = new Box(LEFT + PLOT_WIDTH + MARGIN, TOP,
            LEGEND_SWATCH + 8 + Math.ceil(longest * CHARACTER_WIDTH), 8 + legendLabels.size() * LEGEND_ROW);
        final int width = (int)Math.ceil(legend.x() + legend.width() + MARGIN);
        final int height = (int)Math.ceil(Math.max(TOP + PLOT_HEIGHT + BOTTOM, legend.y() + legend.height() + MARGIN));
        return new Frame(plot, legend, width, height);
    }

    private static StringBuilder header(final String title, final Frame frame)
    {
        final StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" " +
            "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            frame.width(), frame.height()));
        text(svg, "title", frame.width() / 2.0, 22, "middle", title, 0);
        rect(svg, "plot-area", frame.plot());
        return svg;
    }

    private static void legend(final StringBuilder svg, final Frame frame, final List<String> labels)
    {
        final Box box = frame.legend();
        rect(svg, "legend", box);
        for (int i = 0; i < labels.size(); i++)
        {
            final double y = box.y() + (i + 1) * LEGEND_ROW;
            svg.append(String.format(Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"4\" fill=\"%s\"/>\n",
                box.x() + 4, y - 4, COLOURS[i % COLOURS.length]));
            text(svg, "legend-label", box.x() + LEGEND_SWATCH, y, "start", labels.get(i), 0);
        }
    }

    private static void rect(final StringBuilder svg, final String cssClass, final Box box)
    {
        svg.append(String.format(Locale.ROOT,
            "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n",
            cssClass, box.x(), box.y(), box.width(), box.height()));
    }

    private static void polylineStart(final StringBuilder svg, final String colour)
    {
        svg.append("<polyline class=\"series\" fill=\"none\" stroke-width=\"2\" stroke=\"").append(colour)
            .append("\" points=\"");
    }

    private static void xTitle(final StringBuilder svg, final Frame frame, final String title)
    {
        text(svg, "axis-title", frame.plot().x() + frame.plot().width() / 2.0, frame.height() - 18, "middle", title, 0);
    }

    private static void yTitle(final StringBuilder svg, final Frame frame, final String title)
    {
        text(svg, "axis-title", 18, frame.plot().y() + frame.plot().height() / 2.0, "middle", title, -90);
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
        final StringBuilder svg,
        final String cssClass,
        final double x,
        final double y,
        final String anchor,
        final String s,
        final int rotate)
    {
        svg.append(String.format(Locale.ROOT, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"",
            cssClass, x, y, anchor));
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

    private static double yLog(final Box plot, final double value, final double logMin, final double logMax)
    {
        final double clamped = Math.min(Math.max(Math.log10(value), logMin), logMax);
        return plot.y() + plot.height() - (clamped - logMin) / (logMax - logMin) * plot.height();
    }

    private static double yLinear(final Box plot, final double value, final double top)
    {
        return plot.y() + plot.height() - Math.max(0, value) / top * plot.height();
    }

    private static double xLinear(final Box plot, final double value, final double right)
    {
        return plot.x() + Math.max(0, value) / right * plot.width();
    }
}
