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

import io.metaroce.datapath.settings.EngineSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A receiver connection's share of its group's credit, without a connection.
 */
class ReceiverCreditTest
{
    private static final int MTU = 1408;

    private final EngineSettings settings = EngineSettings.builder().build();
    private final SharedCreditScheduler shared = new SharedCreditScheduler(settings);
    private final CountersManager countersManager = new CountersManager(
        new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 64)), new UnsafeBuffer(ByteBuffer.allocateDirect(1024 * 16)));
    private final AtomicCounter grantLimit = countersManager.newCounter("grant");

    @Test
    void shouldGrantNothingAndOweNoCreditWithoutReceiverCredit()
    {
        final ReceiverCredit credit = new ReceiverCredit(shared, false, 131_072, MTU, 0, grantLimit);

        credit.onRequest(true, 1_000_000, 0, 0, 1, 0);
        assertEquals(-1, credit.client());
        assertEquals(0, credit.grantLimit());
        assertEquals(0, credit.initialGrantLimit());
        assertFalse(credit.isDue(), "a request without credit is not answered");
        assertEquals(0, grantLimit.get());
    }

    @Test
    void shouldGiveAnInitialGrantAndOweACreditWhenItMovesOrTheSenderAsks()
    {
        final ReceiverCredit credit = new ReceiverCredit(shared, true, 4096, MTU, 0, grantLimit);
        assertTrue(credit.client() >= 0);
        assertTrue(credit.initialGrantLimit() > 0);
        assertEquals(credit.initialGrantLimit(), credit.grantLimit());
        assertEquals(credit.initialGrantLimit(), grantLimit.get(), "published");
        assertFalse(credit.isDue());

        credit.onGrant(credit.initialGrantLimit() + 1000);
        assertEquals(credit.initialGrantLimit() + 1000, grantLimit.get());
        assertTrue(credit.isDue());
        assertEquals(0, credit.plane(0), "an unsolicited grant follows the trigger");
        credit.onAckSent();
        assertFalse(credit.isDue(), "an ACK carried it");

        credit.onRequest(true, 100_000, 0, 0, 1, 0);
        assertTrue(credit.isDue());
        assertEquals(1, credit.plane(0), "an answer goes on the request's plane");
        credit.onCreditSent();
        assertFalse(credit.isDue());

        credit.retire();
        credit.remove();
    }
}
