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

import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.datapath.io.LossGenerator;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's loss generator: properties per plane, DATA and control told apart, fixed patterns exact, random rates
 * reproducible from the seed, run-time changes honoured.
 */
class NetworkLossGeneratorTest
{
    private final UnsafeBuffer data = new UnsafeBuffer(new byte[256]);
    private final UnsafeBuffer ack = new UnsafeBuffer(new byte[256]);

    NetworkLossGeneratorTest()
    {
        new DataEncoder().wrapAndApplyHeader(data, 0, new MessageHeaderEncoder());
        new AckEncoder().wrapAndApplyHeader(ack, 0, new MessageHeaderEncoder());
    }

    @AfterEach
    void clearProperties()
    {
        System.clearProperty(Configuration.LOSS_DATA_RATE_PROP_NAME);
        System.clearProperty(Configuration.LOSS_CONTROL_EVERY_PROP_NAME);
        System.clearProperty(Configuration.LOSS_SEED_PROP_NAME);
    }

    @Test
    void shouldDropByPatternPerPlaneAndKindWhenConfiguredByProperties()
    {
        assertNull(NetworkLossGenerator.fromSystemProperties());
        System.setProperty(Configuration.LOSS_DATA_RATE_PROP_NAME, "0,1.0");
        System.setProperty(Configuration.LOSS_CONTROL_EVERY_PROP_NAME, "3");
        System.setProperty(Configuration.LOSS_SEED_PROP_NAME, "7");

        final NetworkLossGenerator generator = NetworkLossGenerator.fromSystemProperties();
        assertEquals(7, generator.seed());
        final LossGenerator stage = generator.newStage(0);
        int controlDrops = 0;
        for (int i = 0; i < 30; i++)
        {
            assertEquals(false, stage.shouldDrop(data, 0, 100, 0), "data on plane 0 passes");
            assertTrue(stage.shouldDrop(data, 0, 100, 1), "data on plane 1 is all dropped");
            controlDrops += stage.shouldDrop(ack, 0, 100, 0) ? 1 : 0;
        }
        assertEquals(10, controlDrops, "every third control datagram on plane 0");
    }

    @Test
    void shouldReplayRandomLossFromSeedAndHonourRunTimeChanges()
    {
        final NetworkLossGenerator generator = new NetworkLossGenerator(42).dataRate(2, 0.3);
        final LossGenerator a = generator.newStage(1);
        final LossGenerator b = generator.newStage(1);
        int drops = 0;
        for (int i = 0; i < 1000; i++)
        {
            final boolean drop = a.shouldDrop(data, 0, 100, 2);
            assertEquals(drop, b.shouldDrop(data, 0, 100, 2));
            drops += drop ? 1 : 0;
        }
        assertTrue(drops > 200 && drops < 400, "about 30 %: " + drops);

        generator.planeDown(2, true);
        assertTrue(a.shouldDrop(ack, 0, 100, 2));
        generator.planeDown(2, false);
        assertEquals(false, a.shouldDrop(data, 0, 100, 2));
    }

    @Test
    void shouldFailDriverStartNamingTheMalformedProperty()
    {
        System.setProperty(Configuration.LOSS_DATA_RATE_PROP_NAME, "0,lots");
        final ConfigurationException ex = assertThrows(ConfigurationException.class,
            () -> new MediaDriver.Context().conclude());
        assertTrue(ex.getMessage().contains(Configuration.LOSS_DATA_RATE_PROP_NAME), ex.getMessage());
    }
}
