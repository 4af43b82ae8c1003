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
package io.metaroce.datapath.settings;

import io.metaroce.datapath.congestion.AimdCongestionControl;
import io.metaroce.datapath.congestion.DelayCongestionControl;
import io.metaroce.datapath.congestion.RttEstimator;
import io.metaroce.datapath.connection.LossRecovery;
import io.metaroce.datapath.connection.SpuriousLossAllowance;
import io.metaroce.datapath.tracking.LossReason;
import io.metaroce.datapath.tracking.SendTracker;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins the formulas of the loss rules and of the delay target to one statement: the wire specification states each
 * one (the RACK reordering window in section 12.1 (d), the tail-loss probe in 12.1 (e), the target in 13.1) with a
 * worked example; the code evaluates the examples to the same values; every place where the specification repeats a
 * formula (sections 15.6 and 20) repeats it word for word; and every formula the operator guide ({@code
 * docs/driver.md}) shows for a setting that bounds it is the specification's, with the setting's default in place
 * of "this".
 */
class FormulaDocumentationTest
{
    private static final long US = 1_000;
    private static final long MS = 1_000_000;
    private static final int MTU = 1440;
    private static final Path SPEC = Path.of("..", "docs", "spec", "metaroce-wire-protocol.md");
    private static final Path GUIDE = Path.of("..", "docs", "driver.md");
    private static final Pattern GUIDE_ROW =
        Pattern.compile("^\\| `(metaroce\\.datapath\\.[a-z.]+)` \\| `([^`]+)` \\| (.*) \\|$");
    private static final Pattern SECTION_REFERENCE = Pattern.compile("section (\\d+\\.\\d+)");
    private static final Pattern DURATION = Pattern.compile("^(\\d+)(us|ms|s)?$");

    private static final String REORDER_WINDOW_EXAMPLE =
        "Example: srtt 1 ms gives reoWnd = 250 µs with m = 1 and 1 ms with m = 4; srtt 100 µs gives 50 µs.";
    private static final String TAIL_LOSS_PROBE_EXAMPLE =
        "Example, with delayedAck 200 µs: srtt 20 µs gives 220 µs, srtt 100 µs 300 µs, srtt 1 ms 2 ms.";
    private static final String TARGET_EXAMPLE = "Example, with mtu 1440: baseRtt 20 µs, srtt 30 µs, cwnd 65536 " +
        "bytes, one plane: target = 20 + max(25, 10, 2.6) = 45 µs; baseRtt 100 µs, srtt 120 µs, the same window: " +
        "150 µs; baseRtt 50 µs, srtt 200 µs, cwnd 5760 bytes over two planes: 50 + max(25, 25, 400) = 450 µs.";

    @Test
    void shouldComputeTheReorderingWindowOfTheSpecificationExampleWhenSrttAndMultiplierVary() throws IOException
    {
        assertTrue(section("12.1").contains(REORDER_WINDOW_EXAMPLE), "section 12.1 (d) example");

        final RttEstimator rtt = new RttEstimator(100 * US, 10_000 * MS);
        rtt.onSample(MS, 0);
        final LossRecovery recovery = recovery(rtt);
        assertEquals(250 * US, recovery.reorderWindowNs(), "srtt 1 ms, m = 1");

        final SpuriousLossAllowance allowance = recovery.allowance();
        for (int growth = 1; growth <= 3; growth++)
        {
            allowance.onRetransmit(0, growth, LossReason.RACK);
            allowance.onSpuriousRetransmit(0, growth, rtt.srttNs(), growth * 10 * MS);
        }
        assertEquals(4, allowance.reorderMultiplier());
        assertEquals(MS, recovery.reorderWindowNs(), "srtt 1 ms, m = 4");

        final RttEstimator fast = new RttEstimator(100 * US, 10_000 * MS);
        fast.onSample(100 * US, 0);
        assertEquals(50 * US, recovery(fast).reorderWindowNs(), "srtt 100 us, m = 1");
    }

    @Test
    void shouldComputeTheTailLossProbeOfTheSpecificationExampleWhenSrttVaries() throws IOException
    {
        assertTrue(section("12.1").contains(TAIL_LOSS_PROBE_EXAMPLE), "section 12.1 (e) example");

        assertEquals(220 * US, tailLossProbeTimeoutNs(20 * US), "srtt 20 us");
        assertEquals(300 * US, tailLossProbeTimeoutNs(100 * US), "srtt 100 us");
        assertEquals(2 * MS, tailLossProbeTimeoutNs(MS), "srtt 1 ms");
    }

    @Test
    void shouldComputeTheDelayTargetOfTheSpecificationExampleWithBothControllers() throws IOException
    {
        assertTrue(section("13.1").contains(TARGET_EXAMPLE), "section 13.1 example");

        final long window = 65_536;
        final long smallWindow = 4L * MTU;
        assertEquals(45 * US, delayTargetNs(window, 1, 20 * US, 30 * US));
        assertEquals(150 * US, delayTargetNs(window, 1, 100 * US, 120 * US));
        assertEquals(450 * US, delayTargetNs(smallWindow, 2, 50 * US, 200 * US));
        assertEquals(45 * US, aimdThresholdNs(window, 1, 20 * US, 30 * US));
        assertEquals(150 * US, aimdThresholdNs(window, 1, 100 * US, 120 * US));
        assertEquals(450 * US, aimdThresholdNs(smallWindow, 2, 50 * US, 200 * US));
    }

    @Test
    void shouldRepeatTheFormulaWordForWordWhenTheSpecificationRepeatsIt() throws IOException
    {
        final String lossRules = section("12.1");
        assertFormulaIn(lossRules, defaultsRow("reoWnd"), "reoWnd: section 20 against 12.1 (d)");
        assertFormulaIn(lossRules, defaultsRow("TLP"), "TLP: section 20 against 12.1 (e)");
        assertFormulaIn(lossRules, timersRow("TLP"), "TLP: section 15.6 against 12.1 (e)");
        assertFormulaIn(lossRules, defaultsRow("RTO_low"), "RTO_low: section 20 against 12.1 (f)");
        assertFormulaIn(lossRules, defaultsRow("RTO_high"), "RTO_high: section 20 against 12.1 (f)");
        assertFormulaIn(section("13.1"), defaultsRow("target"), "target: section 20 against 13.1");
    }

    @Test
    void shouldShowOnlyTheSpecificationFormulaWhenTheOperatorGuideDocumentsASettingThatBoundsOne() throws IOException
    {
        final TreeSet<String> checked = new TreeSet<>();
        for (final String line : Files.readAllLines(GUIDE, StandardCharsets.UTF_8))
        {
            final Matcher row = GUIDE_ROW.matcher(line);
            if (!row.matches())
            {
                continue;
            }

            final String meaning = row.group(3);
            final Matcher reference = SECTION_REFERENCE.matcher(meaning);
            final String where = reference.find() ? section(reference.group(1)) : normalized(read(SPEC));
            for (final String formula : formulasWithThis(meaning))
            {
                final String stated = formula.replace("this", specificationValue(row.group(2)));
                assertTrue(where.toLowerCase(Locale.ROOT).contains(stated.toLowerCase(Locale.ROOT)),
                    "docs/driver.md, " + row.group(1) + ": " + stated + " is not the specification's");
                checked.add(row.group(1));
            }
        }

        assertTrue(checked.containsAll(List.of(
            "metaroce.datapath.reorder.window.min",
            "metaroce.datapath.tlp.min",
            "metaroce.datapath.cc.slack")), "formulas checked: " + checked);
    }

    private static LossRecovery recovery(final RttEstimator rtt)
    {
        return recovery(rtt, new SendTracker(64, 4, 4, (psn, path, reason, sendTimeNs) -> {}));
    }

    /**
     * Loss recovery with the defaults of the code that the specification's examples assume.
     */
    private static LossRecovery recovery(final RttEstimator rtt, final SendTracker tracker)
    {
        final EngineSettings settings = EngineSettings.builder()
            .lossDetection("all")
            .reorderWindowMinNs(Configuration.REORDER_WINDOW_MIN_NS_DEFAULT)
            .delayedAckNs(Configuration.DELAYED_ACK_NS_DEFAULT)
            .tailLossProbeMinNs(Configuration.TAIL_LOSS_PROBE_MIN_NS_DEFAULT)
            .build();
        tracker.reset(0);
        return new LossRecovery(tracker, rtt, settings);
    }

    /**
     * The time from the last progress to the tail-loss probe, with one packet in flight.
     */
    private static long tailLossProbeTimeoutNs(final long srttNs)
    {
        final RttEstimator rtt = new RttEstimator(100 * US, 10_000 * MS);
        rtt.onSample(srttNs, 0);
        final SendTracker tracker = new SendTracker(64, 4, 4, (psn, path, reason, sendTimeNs) -> {});
        final LossRecovery recovery = recovery(rtt, tracker);
        final long sentNs = 10 * US;
        tracker.recordNew(0, 1000, 0, 0, 0, 0, sentNs);
        recovery.onSendFromIdle(sentNs);
        return recovery.tailLossProbeDeadlineNs() - sentNs;
    }

    private static long delayTargetNs(final long window, final int planes, final long baseRttNs, final long srttNs)
    {
        final DelayCongestionControl cc = new DelayCongestionControl(MTU, window, 4096L * MTU,
            Configuration.CC_ADDITIVE_INCREASE_DEFAULT, Configuration.CC_BETA_DEFAULT, Configuration.CC_MAX_MDF_DEFAULT,
            Configuration.CC_SLACK_NS_DEFAULT, Configuration.PACING_GAIN_DEFAULT);
        cc.planeCount(planes);
        assertEquals(window, cc.window());
        return cc.targetNs(baseRttNs, srttNs);
    }

    private static long aimdThresholdNs(final long window, final int planes, final long baseRttNs, final long srttNs)
    {
        final AimdCongestionControl cc = new AimdCongestionControl(MTU, window, 4096L * MTU, planes,
            Configuration.CC_ADDITIVE_INCREASE_DEFAULT, Configuration.CC_MAX_MDF_DEFAULT,
            Configuration.CC_SLACK_NS_DEFAULT, Configuration.PACING_GAIN_DEFAULT);
        assertEquals(window, cc.window());
        return cc.thresholdNs(baseRttNs, srttNs);
    }

    /**
     * The formula a table row's value starts with, up to the end of its first max(...), is in the text.
     */
    private static void assertFormulaIn(final String text, final String rowValue, final String what)
    {
        final List<String> formulas = formulas(rowValue);
        assertTrue(!formulas.isEmpty(), what + ": no formula in " + rowValue);
        final String formula = rowValue.substring(0, rowValue.indexOf(formulas.get(0)) + formulas.get(0).length());
        assertTrue(text.contains(formula), what + ": " + formula);
    }

    /**
     * The max(...) terms of a text, outermost only, that contain the word "this".
     */
    private static List<String> formulasWithThis(final String text)
    {
        final List<String> found = new ArrayList<>();
        for (final String formula : formulas(text))
        {
            if (formula.matches(".*\\bthis\\b.*"))
            {
                found.add(formula);
            }
        }
        return found;
    }

    /**
     * The outermost max(...) terms of a text, parentheses balanced.
     */
    private static List<String> formulas(final String text)
    {
        final List<String> found = new ArrayList<>();
        int start = text.indexOf("max(");
        while (start >= 0)
        {
            int depth = 0;
            int end = start + 3;
            do
            {
                final char c = text.charAt(end);
                if ('(' == c)
                {
                    depth++;
                }
                else if (')' == c)
                {
                    depth--;
                }
                end++;
            }
            while (depth > 0 && end < text.length());
            found.add(text.substring(start, end));
            start = text.indexOf("max(", end);
        }
        return found;
    }

    /**
     * A default of the operator guide ({@code 50us}, {@code 1ms}, {@code 32}) as the specification writes it.
     */
    private static String specificationValue(final String value)
    {
        final Matcher matcher = DURATION.matcher(value);
        assertTrue(matcher.matches(), "default " + value);
        if (null == matcher.group(2))
        {
            return matcher.group(1);
        }
        final String unit = "us".equals(matcher.group(2)) ? "µs" : matcher.group(2);
        return matcher.group(1) + " " + unit;
    }

    private static String defaultsRow(final String parameter) throws IOException
    {
        return tableValue("## 20. ", parameter, 1);
    }

    private static String timersRow(final String timer) throws IOException
    {
        return tableValue("### 15.6 ", timer, 3);
    }

    /**
     * A cell of the row of a table, under a heading, whose first cell is the name.
     */
    private static String tableValue(final String heading, final String name, final int column) throws IOException
    {
        boolean inSection = false;
        for (final String line : Files.readAllLines(SPEC, StandardCharsets.UTF_8))
        {
            if (line.startsWith("#"))
            {
                inSection = line.startsWith(heading);
            }
            else if (inSection && line.startsWith("| " + name + " |"))
            {
                return line.substring(1).split("\\|")[column].trim();
            }
        }
        throw new AssertionError("no row '" + name + "' under '" + heading + "'");
    }

    /**
     * The text of a numbered section (its subsections included), its lines joined and its spaces collapsed.
     */
    private static String section(final String number) throws IOException
    {
        final String prefix = number.contains(".") ? "### " + number + " " : "## " + number + ". ";
        final StringBuilder text = new StringBuilder();
        boolean inSection = false;
        for (final String line : Files.readAllLines(SPEC, StandardCharsets.UTF_8))
        {
            if (line.startsWith("## ") || line.startsWith("### "))
            {
                inSection = line.startsWith(prefix);
            }
            if (inSection)
            {
                text.append(line).append('\n');
            }
        }
        assertTrue(text.length() > 0, "no section " + number + " in " + SPEC);
        return normalized(text.toString());
    }

    private static String read(final Path path) throws IOException
    {
        return Files.readString(path, StandardCharsets.UTF_8);
    }

    private static String normalized(final String text)
    {
        return text.replaceAll("\\s+", " ");
    }
}
