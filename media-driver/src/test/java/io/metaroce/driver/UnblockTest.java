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

import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.logbuffer.BufferClaim;
import io.metaroce.codec.control.ClientKeepaliveEncoder;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A publisher that claims a frame and never commits it, and a client that claims a ring record and never commits
 * it: the driver unblocks both after their timeouts and counts it, and everyone else carries on.
 */
class UnblockTest
{
    private MediaDriver driver;
    private MetaRoce client;

    @BeforeEach
    void setUp()
    {
        driver = MediaDriver.launch(TestContexts.driverContext());
        client = MetaRoce.connect(TestContexts.clientContext(driver));
    }

    @AfterEach
    void tearDown()
    {
        if (null != client)
        {
            client.close();
        }
        if (null != driver)
        {
            driver.close();
        }
    }

    @Test
    void shouldPadOutClaimHeldLongerThanUnblockTimeout()
    {
        final Subscription subscription = client.addSubscription("metaroce:ipc", 21);
        final ExclusivePublication publication = client.addExclusivePublication("metaroce:ipc", 21);
        Await.until("connected", publication::isConnected);

        final BufferClaim abandoned = new BufferClaim();
        assertTrue(publication.tryClaim(100, abandoned) > 0);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
        message.putLong(0, 4242);
        assertTrue(publication.offer(message) > 0);

        final List<Long> received = new ArrayList<>();
        Await.until("message behind the abandoned claim", 10_000, () ->
        {
            subscription.poll((b, offset, length, header) -> received.add(b.getLong(offset)), 10);
            return !received.isEmpty();
        });

        assertEquals(List.of(4242L), received);
        assertEquals(1, LivenessTest.counterValue(
            client.countersReader(), SystemCounterDescriptor.UNBLOCKED_PUBLICATIONS.label()));
    }

    @Test
    void shouldSkipRingRecordLeftUncommittedByDeadClient()
    {
        try (RawControlChannel raw = new RawControlChannel(driver.directoryName()))
        {
            final int index = raw.ring().tryClaim(ClientKeepaliveEncoder.TEMPLATE_ID, 16);
            assertTrue(index > 0);

            final Subscription subscription = client.addSubscription("metaroce:ipc", 22);
            assertTrue(subscription.registrationId() > 0);
            assertEquals(1, LivenessTest.counterValue(
                client.countersReader(), SystemCounterDescriptor.UNBLOCKED_COMMANDS.label()));
        }
    }
}
