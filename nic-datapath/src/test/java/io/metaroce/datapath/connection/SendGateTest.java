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

import io.metaroce.datapath.congestion.DelayCongestionControl;
import io.metaroce.datapath.tracking.SendTracker;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SendGateTest
{
    private static final int MTU = 1000;
    private static final long US = 1_000;
    private static final long SRTT = 25 * US;

    private final SendTracker tracker = new SendTracker(64, 4, 4, (psn, path, reason, sendTimeNs) -> {});
    private final SendGate gate = new SendGate(tracker, 8, 100 * US, 0);
    private final DelayCongestionControl cc =
        new DelayCongestionControl(MTU, 2 * MTU, 64L * MTU, 1.0, 0.8, 0.5, 25 * US, 1.25);
    private long position;

    private void send(final int length, final long nowNs)
    {
        tracker.recordNew(position, length, 0, 0, 0, 0, nowNs);
        position += length;
        gate.onNewDataSent(length, nowNs);
    }

    @Test
    void shouldStayClosedUntilEstablished()
    {
        tracker.reset(0);
        assertEquals(0, gate.newDataLimit(10_000, 0, 0));
        assertEquals(0, gate.trackingWindow());
        assertEquals(0, gate.creditTargetBytes(), "no controller and no payload size yet");
    }

    @Test
    void shouldLimitNewDataByCreditAndRememberSinceWhenItIsShort()
    {
        tracker.reset(0);
        gate.onEstablished(64, MTU, true, true, 2_500, cc);
        assertEquals(MTU, gate.newDataLimit(10_000, 0, 0));
        assertFalse(gate.isCreditBlocked());
        send(MTU, 0);
        send(MTU, 0);

        // [MR-CC-7] 500 bytes of credit left: a shorter DATA may go, and the shortage is noted
        assertEquals(500, gate.newDataLimit(10_000, position, 10 * US));
        assertTrue(gate.isCreditBlocked());
        assertEquals(10 * US + 100 * US, gate.creditRequestDeadlineNs(SRTT), "max(2 x srtt, creditRequestMin)");
        send(500, 20 * US);
        assertEquals(0, gate.newDataLimit(10_000, position, 30 * US), "no credit left");

        assertFalse(gate.onGrant(2_000), "grant limits are cumulative: a lower one is stale");
        assertTrue(gate.onGrant(5_000));
        assertEquals(MTU, gate.newDataLimit(10_000, position, 40 * US));
        gate.onNewDataAllowed();
        assertFalse(gate.isCreditBlocked());

        gate.onCreditRequestSent(50 * US);
        gate.newDataLimit(position + MTU + 1, position, 60 * US);
        assertFalse(gate.isCreditBlocked(), "room for what the source holds is no shortage");
    }

    @Test
    void shouldCloseOnTheTrackingWindowAndTheEmptySource()
    {
        tracker.reset(0);
        gate.onEstablished(2, MTU, false, false, 0, cc);
        assertEquals(0, gate.newDataLimit(0, 0, 0), "nothing to send");
        send(MTU, 0);
        send(MTU, 0);
        // [MR-CC-7] psn - cumAck < mprPsns
        assertEquals(0, gate.newDataLimit(10_000, position, 0));
    }

    @Test
    void shouldLetOnePacketPassAnyWindowAndEnforceTheWindowOnlyInWindowMode()
    {
        tracker.reset(0);
        gate.onEstablished(64, MTU, true, false, 0, cc);
        assertTrue(gate.congestionAllows(8 * MTU), "nothing in flight: a packet always passes");
        send(1_500, 0);
        assertTrue(gate.congestionAllows(500));
        assertFalse(gate.congestionAllows(501), "[MR-CC-7] inflight + length <= cwnd");

        final SendGate off = new SendGate(tracker, 8, 100 * US, 0);
        off.onEstablished(64, MTU, false, false, 0, cc);
        assertTrue(off.congestionAllows(64 * MTU), "cc=false: the window is not enforced");
    }

    @Test
    void shouldPaceWithTheControllersRateOrTheGrantRate()
    {
        tracker.reset(0);
        gate.onEstablished(64, MTU, true, true, 100_000, cc);
        gate.updatePacing(SRTT);
        // a window in start-up is paced at 2 x cwnd / srtt: 2 x 2000 bytes per 25 us
        assertEquals(160_000_000, gate.pacer().rate());
        gate.onGrantRate(1_000_000);
        gate.updatePacing(SRTT);
        assertEquals(1_000_000, gate.pacer().rate(), "never above the grant rate");

        gate.onNewDataSent(MTU, 0);
        assertEquals(1_000_000, gate.pacingDeadlineNs(0), "1000 bytes at 1 MB/s");
        assertEquals(0, gate.newDataLimit(10_000, 0, 1));
        assertEquals(Long.MAX_VALUE, gate.pacingDeadlineNs(1_000_000));

        final SendGate off = new SendGate(tracker, 8, 100 * US, 0);
        off.onEstablished(64, MTU, false, true, 100_000, cc);
        off.onGrantRate(3_000_000);
        off.updatePacing(SRTT);
        assertEquals(3_000_000, off.pacer().rate(), "without the sender window only the grant rate paces");
    }

    @Test
    void shouldAskForAnAckWhenTheGateWillHoldWhatIsLeft()
    {
        tracker.reset(0);
        gate.onEstablished(64, MTU, true, true, 1_500, cc);
        send(MTU, 0);
        assertTrue(gate.isAckStarved(MTU), "500 bytes of credit left for a 1000-byte packet");
        assertFalse(gate.isAckStarved(400), "the rest fits the credit and the window");
        assertTrue(gate.onGrant(100_000));
        send(MTU, 0);
        assertTrue(gate.isAckStarved(MTU), "cwnd 2000 is full");
        assertEquals(2 * MTU, gate.creditTargetBytes(), "a window's worth");
    }
}
