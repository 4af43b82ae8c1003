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
package io.metaroce.datapath.connection;

import io.metaroce.datapath.tracking.LossReason;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SpuriousLossAllowanceTest
{
    private static final long SRTT_NS = 100_000;

    private final SpuriousLossAllowance allowance = new SpuriousLossAllowance();

    @Test
    void shouldStartAtOne()
    {
        assertEquals(1, allowance.reorderMultiplier());
        assertEquals(1, allowance.dupThreshMultiplier());
        assertEquals(1, allowance.timeoutMultiplier());
    }

    @Test
    void shouldGrowTheAllowanceOfTheRuleThatErred()
    {
        allowance.onRetransmit(2, 10, LossReason.RACK);
        allowance.onRetransmit(3, 11, LossReason.OUT_OF_ORDER_DISTANCE);
        allowance.onRetransmit(0, 12, LossReason.TIMEOUT);
        allowance.onRetransmit(1, 13, LossReason.NACK);

        assertEquals(SpuriousLossAllowance.KIND_DUP_THRESH, allowance.onSpuriousRetransmit(3, 11, SRTT_NS, 0));
        assertEquals(1, allowance.reorderMultiplier());
        assertEquals(2, allowance.dupThreshMultiplier());

        assertEquals(SpuriousLossAllowance.KIND_REORDER, allowance.onSpuriousRetransmit(2, 10, SRTT_NS, 0));
        assertEquals(2, allowance.reorderMultiplier());

        assertEquals(SpuriousLossAllowance.KIND_TIMEOUT, allowance.onSpuriousRetransmit(0, 12, SRTT_NS, 0));
        assertEquals(2, allowance.timeoutMultiplier());

        // A NACK-driven retransmission has no allowance; an unknown transmission is counted only.
        assertEquals(SpuriousLossAllowance.KIND_NONE, allowance.onSpuriousRetransmit(1, 13, SRTT_NS, 0));
        assertEquals(SpuriousLossAllowance.KIND_NONE, allowance.onSpuriousRetransmit(5, 99, SRTT_NS, 0));
    }

    @Test
    void shouldTreatTailLossProbeAsReordering()
    {
        allowance.onRetransmit(0, 1, LossReason.TAIL_LOSS_PROBE);
        assertEquals(SpuriousLossAllowance.KIND_REORDER, allowance.onSpuriousRetransmit(0, 1, SRTT_NS, 0));
        assertEquals(2, allowance.reorderMultiplier());
    }

    @Test
    void shouldGrowAtMostOncePerSrttAndUpToItsCap()
    {
        for (int i = 0; i < 10; i++)
        {
            allowance.onRetransmit(0, i, LossReason.RACK);
        }
        // A burst within one srtt is one error.
        allowance.onSpuriousRetransmit(0, 0, SRTT_NS, 0);
        allowance.onSpuriousRetransmit(0, 1, SRTT_NS, SRTT_NS / 2);
        assertEquals(2, allowance.reorderMultiplier());

        long now = 0;
        for (int i = 2; i < 10; i++)
        {
            now += SRTT_NS;
            allowance.onSpuriousRetransmit(0, i, SRTT_NS, now);
        }
        assertEquals(SpuriousLossAllowance.MAX_REORDER_MULTIPLIER, allowance.reorderMultiplier());

        for (int i = 0; i < 20; i++)
        {
            allowance.onRetransmit(1, i, LossReason.TIMEOUT);
            now += SRTT_NS;
            allowance.onSpuriousRetransmit(1, i, SRTT_NS, now);
        }
        assertEquals(SpuriousLossAllowance.MAX_TIMEOUT_MULTIPLIER, allowance.timeoutMultiplier());
    }

    @Test
    void shouldShrinkOneStepPerQuietDecayInterval()
    {
        allowance.onRetransmit(0, 0, LossReason.RACK);
        allowance.onRetransmit(0, 1, LossReason.RACK);
        allowance.onSpuriousRetransmit(0, 0, SRTT_NS, 0);
        allowance.onSpuriousRetransmit(0, 1, SRTT_NS, SRTT_NS);
        assertEquals(3, allowance.reorderMultiplier());

        final long interval = Math.max(SpuriousLossAllowance.DECAY_SRTTS * SRTT_NS, SpuriousLossAllowance.MIN_DECAY_NS);
        allowance.decay(SRTT_NS, SRTT_NS + interval - 1);
        assertEquals(3, allowance.reorderMultiplier());
        allowance.decay(SRTT_NS, SRTT_NS + interval);
        assertEquals(2, allowance.reorderMultiplier());
        allowance.decay(SRTT_NS, SRTT_NS + interval + 1);
        assertEquals(2, allowance.reorderMultiplier());
        allowance.decay(SRTT_NS, SRTT_NS + 2 * interval);
        assertEquals(1, allowance.reorderMultiplier());
        allowance.decay(SRTT_NS, SRTT_NS + 10 * interval);
        assertEquals(1, allowance.reorderMultiplier());
    }

    @Test
    void shouldShrinkTheReorderingAllowancesOnceASrttWhenARetransmissionProvesNeeded()
    {
        // Grow the reordering window to 3 and dupThresh to 2 with spurious answers.
        allowance.onRetransmit(0, 0, LossReason.RACK);
        allowance.onRetransmit(0, 1, LossReason.RACK);
        allowance.onRetransmit(0, 2, LossReason.OUT_OF_ORDER_DISTANCE);
        allowance.onRetransmit(0, 3, LossReason.TIMEOUT);
        allowance.onSpuriousRetransmit(0, 0, SRTT_NS, 0);
        allowance.onSpuriousRetransmit(0, 1, SRTT_NS, SRTT_NS);
        allowance.onSpuriousRetransmit(0, 2, SRTT_NS, SRTT_NS);
        allowance.onSpuriousRetransmit(0, 3, SRTT_NS, SRTT_NS);
        assertEquals(3, allowance.reorderMultiplier());
        assertEquals(2, allowance.dupThreshMultiplier());
        assertEquals(2, allowance.timeoutMultiplier());

        // A needed retransmission (any rule's) is evidence of real loss: the reordering and dupThresh allowances step
        // down, once per srtt; the timeout's waits for its decay.
        allowance.onRetransmit(1, 0, LossReason.PATH_SEQ_GAP);
        allowance.onRetransmit(1, 1, LossReason.RACK);
        allowance.onRetransmit(1, 2, LossReason.RACK);
        final long t = 2 * SRTT_NS;
        assertEquals(SpuriousLossAllowance.KIND_NONE, allowance.onNeededRetransmit(1, 0, SRTT_NS, t));
        assertEquals(2, allowance.reorderMultiplier());
        assertEquals(1, allowance.dupThreshMultiplier());
        assertEquals(SpuriousLossAllowance.KIND_REORDER, allowance.onNeededRetransmit(1, 1, SRTT_NS, t + 1));
        assertEquals(2, allowance.reorderMultiplier(), "at most once per srtt");
        allowance.onNeededRetransmit(1, 2, SRTT_NS, t + SRTT_NS);
        assertEquals(1, allowance.reorderMultiplier());
        assertEquals(2, allowance.timeoutMultiplier());
        assertEquals(SpuriousLossAllowance.KIND_NONE, allowance.onNeededRetransmit(1, 2, SRTT_NS, t + 5 * SRTT_NS),
            "an answer is matched once");
    }

    @Test
    void shouldForgetTransmissionsBeyondItsHistory()
    {
        allowance.onRetransmit(0, 0, LossReason.RACK);
        for (int i = 1; i <= 256; i++)
        {
            allowance.onRetransmit(1, i, LossReason.NACK);
        }
        assertEquals(SpuriousLossAllowance.KIND_NONE, allowance.onSpuriousRetransmit(0, 0, SRTT_NS, 0));
        assertEquals(1, allowance.reorderMultiplier());
    }
}
