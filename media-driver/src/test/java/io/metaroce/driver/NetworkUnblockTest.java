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

import io.metaroce.client.ConcurrentPublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.BufferClaim;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A network publication whose publisher claimed a frame and never committed it: the sender cannot read past the
 * uncommitted frame, so the driver pads the claim out after the unblock timeout and the messages behind it reach the
 * other driver's subscriber (the PAD crosses the wire inside the term).
 */
class NetworkUnblockTest
{
    private static final int STREAM_ID = 2101;
    private NetworkTestHarness harness;

    @AfterEach
    void tearDown()
    {
        if (null != harness)
        {
            harness.close();
        }
    }

    @Test
    void shouldPadOutClaimHeldLongerThanUnblockTimeoutAndDeliverWhatFollows()
    {
        harness = new NetworkTestHarness(2);
        final MediaDriver receiverDriver = harness.launch(NetworkTestHarness.driverContext());
        final MediaDriver senderDriver = harness.launch(NetworkTestHarness.driverContext());
        final MetaRoce receiverClient = harness.connect(receiverDriver);
        final MetaRoce senderClient = harness.connect(senderDriver);
        final Subscription subscription = receiverClient.addSubscription(harness.subscriptionChannel(""), STREAM_ID);
        final ConcurrentPublication publication = senderClient.addPublication(
            harness.publicationChannel(""), STREAM_ID);
        Await.until("publication connected", 10_000, publication::isConnected);

        final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
        message.putLong(0, 1);
        assertTrue(publication.offer(message) > 0);
        final BufferClaim abandoned = new BufferClaim();
        assertTrue(publication.tryClaim(100, abandoned) > 0);
        for (long value = 2; value <= 3; value++)
        {
            message.putLong(0, value);
            assertTrue(publication.offer(message) > 0);
        }

        final List<Long> received = new ArrayList<>();
        Await.until("messages on both sides of the abandoned claim", 15_000, () ->
        {
            subscription.poll((buffer, offset, length, header) -> received.add(buffer.getLong(offset)), 10);
            return received.size() >= 3;
        });

        assertEquals(List.of(1L, 2L, 3L), received);
        assertEquals(1, LivenessTest.counterValue(
            senderClient.countersReader(), SystemCounterDescriptor.UNBLOCKED_PUBLICATIONS.label()));
    }
}
