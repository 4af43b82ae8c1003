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
package io.metaroce.datapath;

import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.datapath.connection.SharedCreditScheduler;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.EngineSettings;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two engines (two receive endpoints of one link) sharing a {@link SharedCreditScheduler}: one credit window holds
 * over the senders of both, every grant goes out from the engine that owns the connection, and a client id freed
 * by one engine serves a connection of the other.
 */
class SharedCreditSchedulerTest
{
    private static final int QUANTUM = 8 * 1024;
    private static final int WINDOW = 32 * 1024;
    private static final int FRAME_ALLOWANCE =
        ((1408 - WireProtocol.DATA_HEADER_LENGTH) & ~(io.metaroce.codec.FrameDescriptor.FRAME_ALIGNMENT - 1)) - 1;
    private static final long BACKLOG = 1 << 20;
    private static final int PAYLOAD = 64;
    private static final int FRAME_LENGTH = 96;

    private static final Consumer<EngineSettings.Builder> CREDIT = (settings) -> settings
        .creditQuantum(QUANTUM).creditWindowBytes(WINDOW).initialCreditBytes(QUANTUM);

    private final SharedCreditScheduler shared = new SharedCreditScheduler(settings(CREDIT));

    @Test
    void shouldHoldOneCreditWindowOverBothEnginesWhenTheyShareTheScheduler()
    {
        final WireFixture a = fixture(CREDIT, shared);
        final WireFixture b = fixture(CREDIT, shared);
        assertSame(shared, a.engine.creditScheduler());
        assertSame(shared, b.engine.creditScheduler());

        final long[] grants = transfer(a, b);

        assertEquals(2, shared.activeSenders(), "the senders of both engines take part in one round");
        // A backlogged sender's grant remainder below one DATA payload is not counted against the window (it cannot
        // send a frame into it): the window holds up to that much more per sender.
        final long bound = WINDOW + 2L * FRAME_ALLOWANCE;
        assertTrue(shared.outstandingBytes() <= bound, "outstanding " + shared.outstandingBytes());
        assertTrue(outstanding(grants) <= bound, "outstanding on the wire " + outstanding(grants));
        assertTrue(grants[0] > QUANTUM && grants[1] > QUANTUM, "both senders were granted beyond the initial credit");
        // Client ids are the scheduler's, over both engines: each engine carries its own connection's grant.
        assertEquals(shared.scheduler().grantLimit(0), grants[0]);
        assertEquals(shared.scheduler().grantLimit(1), grants[1]);
    }

    @Test
    void shouldHoldOneCreditWindowPerEngineWhenEachBuildsItsOwn()
    {
        final WireFixture a = fixture(CREDIT, null);
        final WireFixture b = fixture(CREDIT, null);
        assertTrue(a.engine.creditScheduler() != b.engine.creditScheduler());

        final long[] grants = transfer(a, b);

        assertTrue(outstanding(grants) > WINDOW, "two windows outstanding: " + outstanding(grants));
        assertEquals(a.engine.creditScheduler().outstandingBytes() + b.engine.creditScheduler().outstandingBytes(),
            outstanding(grants));
    }

    @Test
    void shouldGrantToTheOtherEnginesConnectionWhenAClientIdIsReused()
    {
        final WireFixture a = fixture(CREDIT, shared);
        final WireFixture b = fixture(CREDIT, shared);
        final int idA = establish(a);
        a.inject(dataWithBacklog(a, idA, 0), 0);
        a.work();
        a.engine.close();
        a.sent();
        assertEquals(0, shared.outstandingBytes(), "a closed engine's connections leave the scheduler");

        final int idB = establish(b);
        b.inject(dataWithBacklog(b, idB, 0), 0);
        b.work();
        b.work();
        final long grant = highestGrant(b);
        assertTrue(grant > QUANTUM, "client 0 now belongs to engine b, which carries its grants: " + grant);
        assertEquals(shared.scheduler().grantLimit(0), grant);
        assertEquals(0, a.sent().size(), "the closed engine sends nothing");
    }

    @Test
    void shouldRefuseAnEngineWhoseLinkRateDiffersFromTheSharedScheduler()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> fixture(CREDIT.andThen((c) -> c.linkRateMbps(10_000)), shared));
        assertTrue(ex.getMessage().contains(Configuration.LINK_RATE_MBPS_PROP_NAME), ex.getMessage());
    }

    @Test
    void shouldRefuseAnEngineWhoseCreditWindowDiffersFromTheSharedScheduler()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> fixture(CREDIT.andThen((c) -> c.creditWindowBytes(2 * WINDOW)), shared));
        assertTrue(ex.getMessage().contains(Configuration.CREDIT_WINDOW_BYTES_PROP_NAME), ex.getMessage());
    }

    /**
     * One sender on each engine announcing a large backlog, a DATA at a time, while both engines run.
     *
     * @return the highest grant limit each engine sent its sender.
     */
    private static long[] transfer(final WireFixture a, final WireFixture b)
    {
        final int idA = establish(a);
        final int idB = establish(b);
        final long[] grants = new long[2];
        for (int i = 0; i < 4; i++)
        {
            a.inject(dataWithBacklog(a, idA, i), 0);
            b.inject(dataWithBacklog(b, idB, i), 0);
            a.work();
            b.work();
            grants[0] = Math.max(grants[0], highestGrant(a));
            grants[1] = Math.max(grants[1], highestGrant(b));
        }
        a.work();
        b.work();
        grants[0] = Math.max(grants[0], highestGrant(a));
        grants[1] = Math.max(grants[1], highestGrant(b));

        return grants;
    }

    private static long outstanding(final long[] grants)
    {
        // Each sender sent four DATA frames, frame header and payload, which is what credit counts.
        final long received = 4L * FRAME_LENGTH;
        return grants[0] - received + grants[1] - received;
    }

    private static WireFixture fixture(
        final Consumer<EngineSettings.Builder> config, final SharedCreditScheduler shared)
    {
        final WireFixture fixture = new WireFixture(2, config, shared);
        fixture.imageWindow = WireFixture.TERM_LENGTH;
        return fixture;
    }

    private static EngineSettings settings(final Consumer<EngineSettings.Builder> config)
    {
        final EngineSettings.Builder builder = EngineSettings.builder();
        config.accept(builder);
        return builder.build();
    }

    /**
     * A connection with the default stream open on it, set up with an initial credit of one quantum.
     */
    private static int establish(final WireFixture f)
    {
        f.inject(f.setup((s) -> s.initialCreditBytes(QUANTUM)), 0);
        f.work();
        final List<ScriptedTransport.Sent> sent = f.sentOfType(f.sent(), SetupAckDecoder.TEMPLATE_ID);
        assertEquals(1, sent.size());
        f.read(sent.get(0));
        final int id = (int)f.reader.transportHeader().srcConnId();
        f.openReceiverStream(id);
        return id;
    }

    private static int dataWithBacklog(final WireFixture f, final int id, final int index)
    {
        final int psn = WireFixture.ISN + index;
        final int length = f.data(id, psn, 0, 0, 1, index, (long)FRAME_LENGTH * index, PAYLOAD);
        new DataEncoder().wrap(f.buffer, MessageHeaderEncoder.ENCODED_LENGTH).backlogBytes(BACKLOG);
        return length;
    }

    private static long highestGrant(final WireFixture f)
    {
        long grant = 0;
        for (final ScriptedTransport.Sent sent : f.sent())
        {
            final int template = f.read(sent);
            if (AckDecoder.TEMPLATE_ID == template)
            {
                grant = Math.max(grant, f.reader.ack().grantLimit());
            }
            else if (CreditDecoder.TEMPLATE_ID == template)
            {
                grant = Math.max(grant, f.reader.credit().grantLimit());
            }
        }
        return grant;
    }
}
