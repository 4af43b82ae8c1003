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
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.security.PacketSealer;
import io.metaroce.driver.security.DriverKeyFile;
import io.metaroce.driver.security.TrustedPeers;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * The driver's authentication as its settings ask for it: the engines' {@link AuthSettings} (the driver's private
 * key and the trusted-key test) and the allow-list that publications' {@code auth-peer} names resolve in. Loaded at
 * start, so that a missing, unreadable or malformed key or allow-list fails the start with a message naming its
 * setting rather than the first connection.
 *
 * @param settings     for the transport engines.
 * @param trustedPeers the allow-list.
 */
record DriverAuthentication(AuthSettings settings, TrustedPeers trustedPeers)
{
    /**
     * Load the key and the allow-list the settings name.
     *
     * @param keyFile          {@link Configuration#AUTH_KEY_FILE_PROP_NAME}, or null.
     * @param trustedPeersFile {@link Configuration#AUTH_TRUSTED_PEERS_FILE_PROP_NAME}, or null.
     * @param require          {@link Configuration#AUTH_REQUIRE_PROP_NAME}.
     * @param keyUpdatePackets {@link Configuration#AUTH_KEY_UPDATE_PACKETS_PROP_NAME} as given, or null.
     * @return the authentication, or null when no key file is set (connections are not authenticated).
     * @throws ConfigurationException naming the setting that cannot work.
     */
    static DriverAuthentication load(
        final String keyFile, final String trustedPeersFile, final boolean require, final String keyUpdatePackets)
    {
        final long updatePackets = keyUpdatePackets(keyUpdatePackets);
        if (null == keyFile)
        {
            if (null != trustedPeersFile)
            {
                throw fail(Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME, "needs " +
                    Configuration.AUTH_KEY_FILE_PROP_NAME + " as well", trustedPeersFile);
            }
            if (require)
            {
                throw fail(Configuration.AUTH_REQUIRE_PROP_NAME, "needs " + Configuration.AUTH_KEY_FILE_PROP_NAME +
                    " and " + Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME, true);
            }
            return null;
        }
        if (null == trustedPeersFile)
        {
            throw fail(Configuration.AUTH_KEY_FILE_PROP_NAME, "needs " +
                Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME + " as well", keyFile);
        }

        final byte[] privateKey = DriverKeyFile.readPrivateKey(Path.of(keyFile), Configuration.AUTH_KEY_FILE_PROP_NAME);
        try
        {
            final TrustedPeers peers =
                TrustedPeers.load(Path.of(trustedPeersFile), Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME);
            final AuthSettings settings = new AuthSettings(privateKey, (key) -> null != peers.byKey(key), require,
                updatePackets, AuthSettings.DEFAULT_REPLAY_RING_BITS, AuthSettings::wallClockNs);
            return new DriverAuthentication(settings, peers);
        }
        catch (final IllegalArgumentException ex)
        {
            throw fail(Configuration.AUTH_KEY_FILE_PROP_NAME, ex.getMessage(), keyFile);
        }
        finally
        {
            Arrays.fill(privateKey, (byte)0);
        }
    }

    private static long keyUpdatePackets(final String value)
    {
        if (null == value)
        {
            return AuthSettings.DEFAULT_KEY_UPDATE_PACKETS;
        }
        final long packets;
        try
        {
            packets = Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw fail(Configuration.AUTH_KEY_UPDATE_PACKETS_PROP_NAME, "must be a whole number", value);
        }
        if (packets < PacketSealer.MIN_KEY_UPDATE_PACKETS || packets > PacketSealer.MAX_KEY_UPDATE_PACKETS)
        {
            throw fail(Configuration.AUTH_KEY_UPDATE_PACKETS_PROP_NAME, "must be from " +
                PacketSealer.MIN_KEY_UPDATE_PACKETS + " to " + PacketSealer.MAX_KEY_UPDATE_PACKETS, value);
        }
        return packets;
    }

    private static ConfigurationException fail(final String name, final String problem, final Object value)
    {
        return new ConfigurationException(name + " " + problem + ": " + value);
    }
}
