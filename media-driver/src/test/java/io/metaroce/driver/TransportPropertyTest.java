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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transport properties choose the driver's packet I/O, and a bad value names its property.
 */
class TransportPropertyTest
{
    @AfterEach
    void clear()
    {
        System.clearProperty(Configuration.TRANSPORT_PROP_NAME);
        System.clearProperty(Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME);
        System.clearProperty(Configuration.TRANSPORT_SEGMENTATION_PROP_NAME);
    }

    @Test
    void shouldRunBatchedByDefaultAndNioWhenAsked()
    {
        assertEquals("udp (batched: up to 32 datagrams per sendmmsg/recvmmsg, segmentation offload on)",
            MediaDriver.Context.transportFactoryProperty(DriverLog.driverLog()).toString(),
            "this build runs where the native library does");

        System.setProperty(Configuration.TRANSPORT_PROP_NAME, "nio");
        assertTrue(MediaDriver.Context.transportFactoryProperty(DriverLog.driverLog()).toString().contains("NIO"));

        System.setProperty(Configuration.TRANSPORT_PROP_NAME, "batched");
        System.setProperty(Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME, "16");
        System.setProperty(Configuration.TRANSPORT_SEGMENTATION_PROP_NAME, "false");
        assertEquals("udp (batched: up to 16 datagrams per sendmmsg/recvmmsg, segmentation offload off)",
            MediaDriver.Context.transportFactoryProperty(DriverLog.driverLog()).toString());
    }

    @Test
    void shouldNameThePropertyOfABadValue()
    {
        System.setProperty(Configuration.TRANSPORT_PROP_NAME, "io_uring");
        assertNames(Configuration.TRANSPORT_PROP_NAME);

        System.setProperty(Configuration.TRANSPORT_PROP_NAME, "batched");
        System.setProperty(Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME, "1");
        assertNames(Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME);

        System.setProperty(Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME, "64");
        System.setProperty(Configuration.TRANSPORT_SEGMENTATION_PROP_NAME, "yes");
        assertNames(Configuration.TRANSPORT_SEGMENTATION_PROP_NAME);
    }

    private static void assertNames(final String property)
    {
        final ConfigurationException ex =
            assertThrows(ConfigurationException.class,
                () -> MediaDriver.Context.transportFactoryProperty(DriverLog.driverLog()));
        assertTrue(ex.getMessage().startsWith(property + " "), ex.getMessage());
    }
}
