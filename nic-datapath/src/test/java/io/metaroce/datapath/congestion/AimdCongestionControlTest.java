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
package io.metaroce.datapath.congestion;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AimdCongestionControlTest
{
    private static final int MTU = 1000;
    private static final long BASE = 20_000;
    private static final long SRTT = 25_000;

    private final AimdCongestionControl cc =
        new AimdCongestionControl(MTU, 10_000, 4096L * MTU, 1, 1.0, 0.5, 25_000, 1.25);

    @Test
    void shouldGrowByTheBytesAcknowledgedInSlowStartThenAdditively()
    {
        assertTrue(cc.isSlowStart());
        assertFalse(cc.onAck(4_000, BASE, BASE, SRTT, 0));
        assertEquals(14_000, cc.window(), "slow start: cwnd += bytesAcked");

        cc.onCongestionLoss(SRTT, 1_000);
        assertFalse(cc.isSlowStart());
        assertEquals(7_000, cc.window(), "a congestion loss halves (maxMdf 0.5)");
        cc.onAck(7_000, BASE, BASE, SRTT, 2_000);
        // cwnd += ai x mtu x bytesAcked / cwnd = 1000 x 7000 / 7000
        assertEquals(8_000, cc.window());
    }

    @Test
    void shouldCutByHalfTheMarkedFractionOncePerSrtt()
    {
        final long threshold = cc.thresholdNs(BASE, SRTT);
        assertEquals(BASE + 25_000, threshold, "10 packets per srtt: the slack is larger than the queue allowance");
        cc.onAck(0, BASE, BASE, SRTT, 0);
        assertFalse(cc.onAck(1_000, threshold + 1, BASE, SRTT, 1_000), "one late sample after a low one: no mark");
        assertEquals(11_000, cc.window());
        assertTrue(cc.onAck(1_000, threshold + 1, BASE, SRTT, 2_000), "two in a row: a mark");
        assertEquals(11_000, cc.window(), "a marked acknowledgement does not grow the window");

        // the srtt ends: F = 1000 / 2000 marked, alpha = 1 + (0.5 - 1) / 16
        cc.onAck(0, -1, BASE, SRTT, SRTT);
        final double alpha = 1.0 - 0.5 / 16;
        assertEquals(alpha, cc.alpha(), 1e-9);
        assertEquals((long)(11_000 * (1 - alpha / 2)), cc.window());
        assertFalse(cc.isSlowStart());
    }

    @Test
    void shouldLetAlphaDecayWhileNothingIsMarked()
    {
        long now = 0;
        for (int i = 0; i < 32; i++)
        {
            now += SRTT;
            cc.onAck(1_000, BASE, BASE, SRTT, now);
        }
        assertTrue(cc.alpha() < 0.2, "alpha " + cc.alpha());
        final long before = cc.window();
        final long threshold = cc.thresholdNs(BASE, SRTT);
        cc.onAck(1_000, threshold, BASE, SRTT, now + 1);
        cc.onAck(1_000, threshold, BASE, SRTT, now + 2);
        cc.onAck(1_000, BASE, BASE, SRTT, now + SRTT);
        assertTrue(cc.window() > before / 2 && cc.window() < before,
            "an occasional mark trims a window whose alpha is small: " + before + " -> " + cc.window());
    }

    @Test
    void shouldDecreaseOnLossAtMostOncePerSrttAndQuickAdaptOnOverflow()
    {
        cc.onCongestionLoss(SRTT, 0);
        assertEquals(5_000, cc.window());
        cc.onCongestionLoss(SRTT, SRTT - 1);
        assertEquals(5_000, cc.window(), "[MR-CC-4] at most once per srtt");

        final AimdCongestionControl other =
            new AimdCongestionControl(MTU, 10_000, 4096L * MTU, 1, 1.0, 0.5, 25_000, 1.25);
        other.onAck(0, -1, BASE, SRTT, 0);
        other.onAck(3_000, -1, BASE, SRTT, 10);
        other.onOverflow(SRTT, 20);
        // [MR-CC-5] the bytes acknowledged during the last srtt; slow start grew the window to 13000 first
        assertEquals(3_000, other.window());
        other.onOverflow(SRTT, 30);
        assertEquals(3_000, other.window(), "at most once per srtt");
    }

    @Test
    void shouldApplyPenaltyAndStayWithinBounds()
    {
        cc.onPenalty(5_000, 64);
        // [MR-CC-6] 5000 x 64 / 128
        assertEquals(7_500, cc.window());
        for (int i = 0; i < 20; i++)
        {
            cc.onCongestionLoss(SRTT, (i + 1) * SRTT);
        }
        assertEquals(MTU, cc.window(), "[MR-CC-2] never below 1 x mtu");

        final AimdCongestionControl small = new AimdCongestionControl(MTU, MTU, 8L * MTU, 1, 1.0, 0.5, 0, 1.25);
        for (int i = 0; i < 10; i++)
        {
            small.onAck(4 * MTU, BASE, BASE, SRTT, i);
        }
        assertEquals(8L * MTU, small.window(), "[MR-CC-2] never above mpr x mtu");
        assertThrows(IllegalArgumentException.class,
            () -> new AimdCongestionControl(MTU, MTU, 8L * MTU, 0, 1.0, 0.5, 0, 1.25));
    }

    @Test
    void shouldAnswerTheCongestionQuestionAndPaceLikeTheDelayController()
    {
        final long threshold = cc.thresholdNs(BASE, SRTT);
        assertFalse(cc.isCongestionSignal(threshold - 1, BASE, SRTT));
        assertTrue(cc.isCongestionSignal(threshold, BASE, SRTT));
        assertEquals(threshold - BASE, cc.delayAllowanceNs(BASE, SRTT));

        assertEquals(0, cc.pacingRate(SRTT, 0), "10 packets: ACK-clocked, no pacing");
        assertEquals(1_000_000, cc.pacingRate(SRTT, 1_000_000), "the grant rate caps the window's");
        final AimdCongestionControl small = new AimdCongestionControl(MTU, 2 * MTU, 8L * MTU, 1, 1.0, 0.5, 0, 1.25);
        // 1.25 x 2000 bytes per 25 us
        assertEquals(100_000_000, small.pacingRate(SRTT, 0));
    }
}
