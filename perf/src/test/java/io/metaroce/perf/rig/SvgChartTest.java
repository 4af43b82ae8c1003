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

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The charts' tick and label computations, and rendered charts read back as XML: tick labels distinct and exact, the
 * legend outside the plot area, every curve inside it.
 */
class SvgChartTest
{
    private static final double[] PLOTTED = {0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999};

    @Test
    void shouldLabelPercentileTicksExactlyUpToTheLargestPercentile()
    {
        assertEquals(List.of("0%", "50%", "90%", "99%", "99.9%", "99.99%", "99.999%"),
            labels(SvgChart.percentileTicks(99.999)));
        assertEquals(List.of("0%", "50%", "90%", "99%", "99.9%", "99.99%"), labels(SvgChart.percentileTicks(99.95)));
        assertEquals(List.of("0%", "50%", "90%"), labels(SvgChart.percentileTicks(75)));
        assertEquals("99.9999%", lastLabel(SvgChart.percentileTicks(100)));
        assertEquals(99.99, SvgChart.percentileTicks(99.99).get(5).value());
    }

    @Test
    void shouldLabelPercentilesWithTheirExactDecimalValue()
    {
        assertEquals("0%", SvgChart.percentileLabel(0));
        assertEquals("50%", SvgChart.percentileLabel(50));
        assertEquals("99.5%", SvgChart.percentileLabel(99.5));
        assertEquals("99.99%", SvgChart.percentileLabel(99.99));
        assertEquals("99.999%", SvgChart.percentileLabel(99.999));
        assertEquals("99.9999%", SvgChart.percentileLabel(99.9999));
    }

    @Test
    void shouldPutLatencyTicksOnPowersOfTenWithAUnitEach()
    {
        assertEquals(List.of("100 ns", "1 µs", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "1 s"),
            labels(SvgChart.latencyTicks(0.47, 700_448.77)));
        assertEquals(List.of("1 µs", "10 µs", "100 µs", "1 ms", "10 ms"), labels(SvgChart.latencyTicks(9.7, 2_402.3)));
        assertEquals(10.0, SvgChart.latencyTicks(10, 100_000).get(0).value());
        assertEquals(100_000.0, SvgChart.latencyTicks(10, 100_000).get(4).value());
    }

    @Test
    void shouldAddTwoAndFiveBetweenPowersOfTenWhenTheRangeIsShort()
    {
        assertEquals(List.of("10 µs", "20 µs", "50 µs", "100 µs"), labels(SvgChart.latencyTicks(12.9, 85.4)));
        assertEquals(List.of("100 ns", "200 ns", "500 ns", "1 µs", "2 µs", "5 µs", "10 µs"),
            labels(SvgChart.latencyTicks(0.14, 8.72)));
        assertEquals(List.of("1 µs", "2 µs", "5 µs", "10 µs"), labels(SvgChart.latencyTicks(1, 1)));
    }

    @Test
    void shouldChooseTheLargestUnitThatKeepsADurationAtOneOrMore()
    {
        assertEquals("1 ns", SvgChart.durationLabel(0.001));
        assertEquals("200 ns", SvgChart.durationLabel(0.2));
        assertEquals("1 µs", SvgChart.durationLabel(1));
        assertEquals("500 µs", SvgChart.durationLabel(500));
        assertEquals("2.5 ms", SvgChart.durationLabel(2_500));
        assertEquals("200 ms", SvgChart.durationLabel(200_146.94));
        assertEquals("3 s", SvgChart.durationLabel(3_000_000));
    }

    @Test
    void shouldStepLinearTicksByOneTwoOrFiveTimesAPowerOfTen()
    {
        assertEquals(List.of("0", "200", "400", "600", "800"), labels(SvgChart.linearTicks(663.9)));
        assertEquals(List.of("0", "10", "20", "30", "40"), labels(SvgChart.linearTicks(36.93)));
        assertEquals(List.of("0.0", "0.5", "1.0", "1.5", "2.0", "2.5"), labels(SvgChart.linearTicks(2.07)));
        assertEquals(List.of("0", "1,000", "2,000", "3,000"), labels(SvgChart.linearTicks(3_000)));
        assertEquals(List.of("0", "50", "100", "150", "200", "250"), labels(SvgChart.linearTicks(203.7)));
        assertEquals(List.of("0.0", "0.2", "0.4", "0.6", "0.8", "1.0"), labels(SvgChart.linearTicks(0)));
    }

    @Test
    void shouldRoundAStepUpToOneTwoOrFiveTimesAPowerOfTen()
    {
        assertEquals("20", SvgChart.niceStep(20).toPlainString());
        assertEquals("50", SvgChart.niceStep(21).toPlainString());
        assertEquals("0.5", SvgChart.niceStep(0.3).toPlainString());
        assertEquals("10", SvgChart.niceStep(7.4).toPlainString());
        assertEquals("0.001", SvgChart.niceStep(0.001).toPlainString());
    }

    @Test
    void shouldDrawFiveSeriesWithDistinctTicksAndTheLegendOutsideThePlotArea() throws Exception
    {
        final List<SvgChart.Series> series = new ArrayList<>();
        final String[] names = {"metaroce-lossless", "metaroce-0.1%-1of4", "metaroce-1%-1of4", "aeron", "aeron-1%"};
        for (int s = 0; s < names.length; s++)
        {
            final double[] values = new double[PLOTTED.length];
            for (int i = 0; i < values.length; i++)
            {
                values[i] = (20 + s) * Math.pow(1.9, i);
            }
            series.add(new SvgChart.Series(names[s], PLOTTED, values));
        }
        final Document svg = parse(SvgChart.percentiles("loss round trip, 32B, rtt", series));

        final List<String> xTicks = texts(svg, "x-tick");
        assertEquals(List.of("0%", "50%", "90%", "99%", "99.9%", "99.99%", "99.999%"), xTicks);
        final List<String> yTicks = texts(svg, "y-tick");
        assertEquals(List.of("10 µs", "100 µs", "1 ms", "10 ms", "100 ms"), yTicks);
        assertEquals(names.length, texts(svg, "legend-label").size());
        assertLegendOutsidePlotAndCurvesInside(svg);
    }

    @Test
    void shouldDrawBarsWithNiceTicksAndTheLegendOutsideThePlotArea() throws Exception
    {
        final Document svg = parse(SvgChart.bars("netns multipath goodput, 200 Mb/s per plane", "Mb/s",
            List.of("metaroce-1p", "metaroce-2p", "metaroce-4p", "aeron"),
            List.of(new SvgChart.BarGroup("goodput", new double[]{146.6, 297.8, 521.0, 181.8}))));

        assertEquals(List.of("0", "200", "400", "600"), texts(svg, "y-tick"));
        assertEquals(List.of("goodput"), texts(svg, "x-tick"));
        assertEquals(4, texts(svg, "legend-label").size());
        assertLegendOutsidePlotAndCurvesInside(svg);
    }

    @Test
    void shouldDrawATimeSeriesWithNiceTicksOnBothAxes() throws Exception
    {
        final double[] x = new double[300];
        final double[] y = new double[300];
        for (int i = 0; i < x.length; i++)
        {
            x[i] = i * 10;
            y[i] = i < 150 ? 203.7 : 202.9;
        }
        final Document svg = parse(SvgChart.timeSeries("failover", "MB/s",
            List.of(new SvgChart.Line("metaroce 4 planes", x, y)), 1_500));

        assertEquals(List.of("0", "50", "100", "150", "200", "250"), texts(svg, "y-tick"));
        assertEquals(List.of("0", "1,000", "2,000", "3,000"), texts(svg, "x-tick"));
        assertLegendOutsidePlotAndCurvesInside(svg);
    }

    private static void assertLegendOutsidePlotAndCurvesInside(final Document svg)
    {
        final SvgChart.Box plot = box(svg, "plot-area");
        final SvgChart.Box legend = box(svg, "legend");
        assertFalse(plot.overlaps(legend), "legend " + legend + " over plot " + plot);

        final Element root = svg.getDocumentElement();
        final double width = Double.parseDouble(root.getAttribute("width"));
        final double height = Double.parseDouble(root.getAttribute("height"));
        assertTrue(legend.x() + legend.width() <= width && legend.y() + legend.height() <= height, legend.toString());
        for (final Element label : elements(svg, "text", "legend-label"))
        {
            final double x = Double.parseDouble(label.getAttribute("x"));
            final double y = Double.parseDouble(label.getAttribute("y"));
            assertTrue(x >= legend.x() && x < legend.x() + legend.width(), "legend label x " + x);
            assertTrue(y > legend.y() && y < legend.y() + legend.height(), "legend label y " + y);
        }

        final List<Element> curves = elements(svg, "polyline", "series");
        for (final Element curve : curves)
        {
            for (final String point : curve.getAttribute("points").trim().split(" "))
            {
                final double x = Double.parseDouble(point.split(",")[0]);
                final double y = Double.parseDouble(point.split(",")[1]);
                assertTrue(x >= plot.x() && x <= plot.x() + plot.width(), "x " + x + " outside " + plot);
                assertTrue(y >= plot.y() && y <= plot.y() + plot.height(), "y " + y + " outside " + plot);
            }
        }
        for (final String cssClass : List.of("x-tick", "y-tick"))
        {
            final List<String> labels = texts(svg, cssClass);
            assertEquals(labels.size(), new HashSet<>(labels).size(), "duplicate tick labels: " + labels);
        }
    }

    private static Document parse(final String svg) throws Exception
    {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new InputSource(new StringReader(svg)));
    }

    private static SvgChart.Box box(final Document svg, final String cssClass)
    {
        final List<Element> rects = elements(svg, "rect", cssClass);
        assertEquals(1, rects.size(), cssClass);
        final Element rect = rects.get(0);
        return new SvgChart.Box(
            Double.parseDouble(rect.getAttribute("x")),
            Double.parseDouble(rect.getAttribute("y")),
            Double.parseDouble(rect.getAttribute("width")),
            Double.parseDouble(rect.getAttribute("height")));
    }

    private static List<String> texts(final Document svg, final String cssClass)
    {
        return elements(svg, "text", cssClass).stream().map(Element::getTextContent).toList();
    }

    private static List<Element> elements(final Document svg, final String tag, final String cssClass)
    {
        final NodeList nodes = svg.getElementsByTagName(tag);
        final List<Element> found = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++)
        {
            final Element element = (Element)nodes.item(i);
            if (cssClass.equals(element.getAttribute("class")))
            {
                found.add(element);
            }
        }
        return found;
    }

    private static List<String> labels(final List<SvgChart.Tick> ticks)
    {
        return ticks.stream().map(SvgChart.Tick::label).toList();
    }

    private static String lastLabel(final List<SvgChart.Tick> ticks)
    {
        return ticks.get(ticks.size() - 1).label();
    }
}
