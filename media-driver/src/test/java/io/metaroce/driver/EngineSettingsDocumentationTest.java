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
package io.metaroce.driver;


import io.metaroce.datapath.connection.ReceiverConnection;
import io.metaroce.datapath.settings.EngineSettings;
import org.agrona.SystemUtil;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.metaroce.datapath.settings.Configuration.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Pins the two tables that repeat the engine's defaults to the code's constants: the operator guide's property tables
 * ({@code docs/driver.md}, Transport engine settings) and the specification's defaults table (its section 20).
 */
class EngineSettingsDocumentationTest
{
    private static final Pattern GUIDE_ROW = Pattern.compile("^\\| `(metaroce\\.datapath\\.[a-z.]+)` \\| `([^`]+)`.*$");

    @Test
    void shouldListEveryEngineSettingInTheOperatorGuideWithTheDefaultOfTheCode() throws Exception
    {
        final Map<String, String> documented = new HashMap<>();
        for (final String line : Files.readAllLines(Path.of("..", "docs", "driver.md"), StandardCharsets.UTF_8))
        {
            final Matcher matcher = GUIDE_ROW.matcher(line);
            if (matcher.matches())
            {
                documented.put(matcher.group(1), matcher.group(2));
            }
        }

        final Set<String> properties = new HashSet<>();
        EngineSettings.fromSystemProperties().forEachValue((name, value) -> properties.add(name));
        assertEquals(properties, documented.keySet(), "one row per engine setting in docs/driver.md");

        for (final Field field : io.metaroce.datapath.settings.Configuration.class.getFields())
        {
            final String constant = field.getName();
            if (!constant.endsWith("_PROP_NAME"))
            {
                continue;
            }
            final String name = (String)field.get(null);
            final Field defaultField = io.metaroce.datapath.settings.Configuration.class.getField(
                constant.substring(0, constant.length() - "_PROP_NAME".length()) + "_DEFAULT");
            final Object expected = defaultField.get(null);
            final String text = documented.get(name);
            assertEquals(expected, parse(text, constant.endsWith("_NS_PROP_NAME"), expected),
                name + ": docs/driver.md says `" + text + "`");
        }
    }

    @Test
    void shouldStateTheDefaultsOfTheCodeInTheSpecificationDefaultsTable() throws IOException
    {
        final Map<String, String> table = specificationDefaults();
        final Map<String, String> expected = new LinkedHashMap<>();
        expected.put("mtu", String.valueOf(MTU_DEFAULT));
        expected.put("entropy values per plane", String.valueOf(PATHS_PER_PLANE_DEFAULT));
        expected.put("pathCount", "planes x " + PATHS_PER_PLANE_DEFAULT);
        expected.put("mprPsns", String.valueOf(MPR_PSNS_DEFAULT));
        expected.put("sackWords", String.valueOf(SACK_WORDS_DEFAULT));
        expected.put("ackEveryPackets", String.valueOf(ACK_EVERY_PACKETS_DEFAULT));
        expected.put("ackEveryBytes", ACK_EVERY_BYTES_DEFAULT / 1024 + " KiB");
        expected.put("delayedAck", duration(DELAYED_ACK_NS_DEFAULT));
        expected.put("nackInterval", "max(SETUP's baseRttHintNs, " + duration(REORDER_WINDOW_MIN_NS_DEFAULT) +
            "), else " + duration(NACK_INTERVAL_NS_DEFAULT) + "; then the lower median of the last " +
            ReceiverConnection.NACK_REPAIR_SAMPLES + " NACK repair times when longer, at most " +
            duration(ReceiverConnection.MAX_NACK_INTERVAL_NS));
        expected.put("REPS ring", REPS_RING_CAPACITY_DEFAULT + " entries");
        expected.put("planeWeightFloor", "1/" + Math.round(1 / PLANE_WEIGHT_FLOOR_DEFAULT));
        expected.put("pathBurst", String.valueOf(PATH_BURST_DEFAULT));
        expected.put("maxEvictFraction", number(MAX_EVICT_FRACTION_DEFAULT));
        expected.put("pathEviction", PATH_EVICTION_DEFAULT ? "on" : "off");
        expected.put("probeInterval (SUSPECT)", "max(srtt, " + duration(PROBE_INTERVAL_MIN_NS_DEFAULT) + "), " +
            PROBES_BEFORE_EVICTION_DEFAULT + " probes");
        expected.put("eviction re-probe",
            duration(REPROBE_MIN_NS_DEFAULT) + " doubling to " + duration(REPROBE_MAX_NS_DEFAULT));
        expected.put("re-admission", READMISSION_PROBE_ACKS_DEFAULT + " consecutive PROBE_ACKs");
        expected.put("plane DOWN", Math.round(PLANE_DOWN_FRACTION_DEFAULT * 100) +
            " % of its paths EVICTED, or socket failure");
        expected.put("k (pathSeq tolerance)", String.valueOf(PATH_SEQ_TOLERANCE_DEFAULT));
        expected.put("dupThresh",
            "max(" + DUP_THRESH_MIN_DEFAULT + ", 3 x ACTIVE paths) + (pathBurst - 1) x ACTIVE paths");
        expected.put("reoWnd", "max(" + duration(REORDER_WINDOW_MIN_NS_DEFAULT) +
            ", min(srtt, m x srtt / 4)), m the reordering multiplier (1 at first)");
        expected.put("TLP", "max(2 x srtt, srtt + delayedAck, " + duration(TAIL_LOSS_PROBE_MIN_NS_DEFAULT) + ")");
        expected.put("RTO_low",
            "max(4 x baseRtt, srtt + 4 x rttvar + delayedAck, " + duration(RTO_LOW_MIN_NS_DEFAULT) + ")");
        expected.put("RTO_high", "max(srtt + 4 x rttvar, 8 x baseRtt, " + duration(RTO_HIGH_MIN_NS_DEFAULT) + ")");
        expected.put("RTO maximum", duration(RTO_MAX_NS_DEFAULT));
        expected.put("maxRetransmits", String.valueOf(MAX_RETRANSMITS_DEFAULT));
        expected.put("minGiveUp", duration(GIVE_UP_MIN_NS_DEFAULT));
        expected.put("baseRtt window", duration(BASE_RTT_WINDOW_NS_DEFAULT));
        expected.put("target", "baseRtt + max(" + duration(CC_SLACK_NS_DEFAULT) +
            ", baseRtt / 2, 4 x mtu x planeCount x srtt / cwnd)");
        expected.put("ai", number(CC_ADDITIVE_INCREASE_DEFAULT));
        expected.put("beta (decrease)", number(CC_BETA_DEFAULT));
        expected.put("maxMdf", number(CC_MAX_MDF_DEFAULT));
        expected.put("pacing", number(PACING_GAIN_DEFAULT) + " x cwnd / srtt when cwnd < 4 x mtu");
        expected.put("initialCreditBytes", INITIAL_CREDIT_BYTES_DEFAULT + " (about 1 BDP)");
        expected.put("credit quantum", CREDIT_QUANTUM_DEFAULT / 1024 + " KiB or BDP / 4");
        expected.put("overcommit", number(CREDIT_OVERCOMMIT_DEFAULT));
        expected.put("creditRequestInterval", "max(2 x srtt, " + duration(CREDIT_REQUEST_MIN_NS_DEFAULT) + ")");
        expected.put("setupRetry",
            duration(SETUP_RETRY_MIN_NS_DEFAULT) + " doubling to " + duration(SETUP_RETRY_MAX_NS_DEFAULT));
        expected.put("keepaliveInterval", duration(KEEPALIVE_INTERVAL_NS_DEFAULT));
        expected.put("statusInterval", duration(STATUS_INTERVAL_NS_DEFAULT));
        expected.put("connectionTimeout", duration(CONNECTION_TIMEOUT_NS_DEFAULT));
        expected.put("rejectReplyRate, rejectReplyBurst",
            REJECT_REPLY_RATE_DEFAULT + " a second, " + REJECT_REPLY_BURST_DEFAULT);
        expected.put("lingerTimeout", duration(LINGER_TIMEOUT_NS_DEFAULT));
        expected.put("closeRetry", "max(RTO, " + duration(CLOSE_RETRY_MIN_NS_DEFAULT) + ") doubling, " +
            CLOSE_RETRIES_DEFAULT + " retries");
        expected.put("maxStreams", String.valueOf(MAX_STREAMS_PER_CONNECTION_DEFAULT));
        expected.put("connections per source host", String.valueOf(MAX_CONNECTIONS_PER_SOURCE_DEFAULT));
        expected.put("unproved connections", String.valueOf(MAX_UNPROVED_CONNECTIONS_DEFAULT));
        expected.put("streams per source host", String.valueOf(MAX_STREAMS_PER_SOURCE_DEFAULT));
        expected.put("maximum termLength opened", MAX_TERM_LENGTH_DEFAULT / (1024 * 1024) + " MiB");
        expected.put("image bytes per connection", MAX_IMAGE_BYTES_PER_CONNECTION_DEFAULT / (1L << 30) + " GiB");
        expected.put("image bytes per source host", MAX_IMAGE_BYTES_PER_SOURCE_DEFAULT / (1L << 30) + " GiB");
        expected.put("counters kept for local applications", String.valueOf(COUNTERS_RESERVE_DEFAULT));

        for (final Map.Entry<String, String> entry : expected.entrySet())
        {
            final String row = table.get(entry.getKey());
            assertNotNull(row, "no row '" + entry.getKey() + "' in the specification's section 20");
            assertEquals(entry.getValue(), row, "section 20, row '" + entry.getKey() + "'");
        }
    }

    private static Map<String, String> specificationDefaults() throws IOException
    {
        final Map<String, String> rows = new HashMap<>();
        boolean inSection = false;
        for (final String line : Files.readAllLines(
            Path.of("..", "docs", "spec", "metaroce-wire-protocol.md"), StandardCharsets.UTF_8))
        {
            if (line.startsWith("## "))
            {
                inSection = line.startsWith("## 20. Defaults");
            }
            else if (inSection && line.startsWith("| ") && !line.startsWith("| Parameter"))
            {
                final String[] cells = line.split("\\|");
                rows.put(cells[1].trim(), cells[2].trim());
            }
        }
        return rows;
    }

    private static Object parse(final String text, final boolean isDuration, final Object expected)
    {
        if (isDuration)
        {
            return SystemUtil.parseDuration("doc", text);
        }
        if (expected instanceof Integer)
        {
            return (int)SystemUtil.parseSize("doc", text);
        }
        if (expected instanceof Long)
        {
            return SystemUtil.parseSize("doc", text);
        }
        if (expected instanceof Double)
        {
            final int space = text.indexOf(' ');
            return Double.parseDouble(-1 == space ? text : text.substring(0, space));
        }
        if (expected instanceof Boolean)
        {
            return Boolean.parseBoolean(text);
        }
        return text;
    }

    private static String duration(final long ns)
    {
        if (0 == ns % 1_000_000_000L)
        {
            return ns / 1_000_000_000L + " s";
        }
        if (0 == ns % 1_000_000L)
        {
            return ns / 1_000_000L + " ms";
        }
        return ns / 1_000L + " µs";
    }

    private static String number(final double value)
    {
        return value == Math.rint(value) ? String.valueOf((long)value) : String.valueOf(value);
    }
}
