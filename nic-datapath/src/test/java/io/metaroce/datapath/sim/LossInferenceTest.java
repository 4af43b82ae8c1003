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
package io.metaroce.datapath.sim;

import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.LossReason;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One targeted scenario per loss-inference rule (specification section 12.1, [MR-LOSS-1]). Each runs with only its
 * rule and the retransmission timeout in force, loses chosen transmissions, and asserts that the rule, not the
 * timeout, found every loss: removing the rule makes the test fail.
 */
class LossInferenceTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private static TransferScenario scenario(
        final String rules, final int planes, final int entropy, final DataDropFilter filter)
    {
        final TransferScenario scenario = new TransferScenario().seed(11);
        scenario.planes = planes;
        scenario.entropy = entropy;
        scenario.messageCount = 200;
        scenario.maxMessageLength = 1200;
        scenario.termLength = 256 * 1024;
        scenario.fabricConfig = (ctx) -> ctx.propagationDelayNs(5_000);
        scenario.senderConfig = (ctx) -> ctx.lossDetection(rules).rtoHighMinNs(20 * MS).rtoLowMinNs(20 * MS);
        scenario.build();
        scenario.fabric.lossGenerator(filter);
        return scenario;
    }

    private static void assertDelivered(final TransferScenario scenario)
    {
        assertTrue(scenario.run(TimeUnit.SECONDS.toNanos(10)), scenario::describe);
        assertNull(scenario.violation(), scenario::describe);
        assertEquals(TerminationCause.NORMAL, scenario.senderTermination[0], scenario::describe);
    }

    private static long otherThan(final SenderConnection connection, final int reason)
    {
        long total = 0;
        for (int r = 0; r < LossReason.COUNT; r++)
        {
            if (r != reason)
            {
                total += connection.retransmits(r);
            }
        }
        return total;
    }

    @Test
    void shouldRecoverLossFromReceiverNackWhenOnlyNackRuleIsOn()
    {
        final DataDropFilter filter = new DataDropFilter(false, 3);
        final TransferScenario scenario = scenario("nack", 1, 4, filter);
        assertDelivered(scenario);
        final SenderConnection sender = scenario.connections[0];
        assertEquals(1, filter.dropped);
        // rule (a): the receiver's hole timer sent NACK(INFERRED_LOSS) [MR-NACK-2 rate-limited per PSN].
        assertEquals(1, sender.retransmits(LossReason.NACK), scenario::describe);
        assertEquals(0, otherThan(sender, LossReason.NACK), scenario::describe);
    }

    @Test
    void shouldRecoverLossFromPathSequenceGapWhenOnlyPathSeqRuleIsOn()
    {
        final DataDropFilter filter = new DataDropFilter(false, 3);
        final TransferScenario scenario = scenario("pathseq", 1, 1, filter);
        assertDelivered(scenario);
        final SenderConnection sender = scenario.connections[0];
        // rule (b): a later transmission on the same FIFO path was acknowledged first.
        assertEquals(1, sender.retransmits(LossReason.PATH_SEQ_GAP), scenario::describe);
        assertEquals(0, otherThan(sender, LossReason.PATH_SEQ_GAP), scenario::describe);
        assertTrue(scenario.completionTimeNs[0] - scenario.clock.nanoTime() < 20 * MS);
    }

    @Test
    void shouldRecoverLossFromReorderingDistanceWhenOnlyOooRuleIsOn()
    {
        final DataDropFilter filter = new DataDropFilter(false, 3);
        final TransferScenario scenario = scenario("ooo", 1, 4, filter);
        assertDelivered(scenario);
        final SenderConnection sender = scenario.connections[0];
        // rule (c): dupThresh = max(32, 3 x 4 paths) + (8 - 1) x 4 paths (the default burst of new DATA per path)
        // later PSNs were acknowledged (the publication window of
        // 128 KiB lets enough packets follow the hole).
        assertEquals(1, sender.retransmits(LossReason.OUT_OF_ORDER_DISTANCE), scenario::describe);
        assertEquals(0, otherThan(sender, LossReason.OUT_OF_ORDER_DISTANCE), scenario::describe);
    }

    @Test
    void shouldRecoverLossFromRackTimeWhenOnlyRackRuleIsOn()
    {
        final DataDropFilter filter = new DataDropFilter(false, 3);
        final TransferScenario scenario = scenario("rack", 1, 4, filter);
        scenario.publishIntervalNs = 20_000;
        assertDelivered(scenario);
        final SenderConnection sender = scenario.connections[0];
        // rule (d): a transmission sent more than reoWnd later was acknowledged first.
        assertEquals(1, sender.retransmits(LossReason.RACK), scenario::describe);
        assertEquals(0, otherThan(sender, LossReason.RACK), scenario::describe);
    }

    @Test
    void shouldRecoverTailLossFromTailLossProbeWhenOnlyTlpRuleIsOn()
    {
        final DataDropFilter filter = new DataDropFilter(true);
        final TransferScenario scenario = scenario("tlp", 1, 4, filter);
        assertDelivered(scenario);
        final SenderConnection sender = scenario.connections[0];
        assertEquals(1, filter.dropped);
        // rule (e): no later packet reveals a tail loss; the TAIL_LOSS probe's answer does.
        assertEquals(1, sender.retransmits(LossReason.TAIL_LOSS_PROBE), scenario::describe);
        assertEquals(0, otherThan(sender, LossReason.TAIL_LOSS_PROBE), scenario::describe);
    }

    @Test
    void shouldRecoverEveryLossByTimeoutWhenNoOtherRuleIsOn()
    {
        final DataDropFilter filter = new DataDropFilter(true, 3, 40);
        final TransferScenario scenario = scenario("", 1, 4, filter);
        assertDelivered(scenario);
        final SenderConnection sender = scenario.connections[0];
        // rule (f): the timeout is the last resort and always in force.
        assertTrue(sender.retransmits(LossReason.TIMEOUT) >= 3, scenario::describe);
        assertEquals(0, otherThan(sender, LossReason.TIMEOUT), scenario::describe);
    }
}
