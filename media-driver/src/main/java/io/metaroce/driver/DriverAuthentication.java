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
import io.metaroce.datapath.security.Authenticator;
import io.metaroce.datapath.security.PacketSealer;
import io.metaroce.driver.security.DriverKeyFile;
import io.metaroce.driver.security.TrustedPeers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The driver's authentication as its settings ask for it: the engines' {@link AuthSettings} (the driver's private
 * key and the trusted-key test) and the allow-list that publications' {@code auth-peer} names resolve in. Loaded at
 * start, so that a missing, unreadable or malformed key or allow-list fails the start with a message naming its
 * setting rather than the first connection.
 * <p>
 * The allow-list is read again when its file changes: the conductor looks at the file's modification time, size and
 * identity at most once per {@link #ALLOW_LIST_CHECK_INTERVAL_NS} ({@link #reloadIfChanged()}), and the engines'
 * trusted-key test reads whichever list was loaded last. A new file that cannot be used (unsafe or malformed) leaves
 * the list in force. Conductor-confined but for {@link #trustedPeers()}, which any thread may read.
 */
final class DriverAuthentication
{
    /**
     * How often the conductor looks for a changed allow-list: once a second.
     */
    static final long ALLOW_LIST_CHECK_INTERVAL_NS = 1_000_000_000L;

    private final Path trustedPeersFile;
    private final AuthSettings settings;
    private volatile TrustedPeers trustedPeers; // volatile: the engines' threads test keys against the latest list
    private Object fileStamp;

    private DriverAuthentication(
        final byte[] privateKey,
        final Path trustedPeersFile,
        final TrustedPeers trustedPeers,
        final Object fileStamp,
        final boolean require,
        final long keyUpdatePackets)
    {
        this.trustedPeersFile = trustedPeersFile;
        this.trustedPeers = trustedPeers;
        this.fileStamp = fileStamp;
        this.settings = new AuthSettings(privateKey, (key) -> null != this.trustedPeers.byKey(key), require,
            keyUpdatePackets, AuthSettings.DEFAULT_REPLAY_RING_BITS, AuthSettings::wallClockNs);
    }

    /**
     * Set-ups between throwaway keys that the first driver to authenticate in a JVM runs at its start (see
     * {@link Authenticator#warmUp(int)}), about 0.3 s of CPU on a 2-vCPU host, so that its first connections
     * take milliseconds to set up rather than tens.
     */
    static final int WARM_UP_HANDSHAKES = 64;

    private static final AtomicBoolean IS_WARMED_UP = new AtomicBoolean();

    /**
     * Warm up the handshake's primitives, once per JVM: the JIT's compiled code is the JVM's, not the driver's.
     *
     * @return the handshakes run: {@link #WARM_UP_HANDSHAKES} the first time, then 0.
     */
    static int warmUpOnce()
    {
        return IS_WARMED_UP.compareAndSet(false, true) ? Authenticator.warmUp(WARM_UP_HANDSHAKES) : 0;
    }

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
            final Path peersFile = Path.of(trustedPeersFile);
            final Object stamp = fileStamp(peersFile);
            final TrustedPeers peers = TrustedPeers.load(peersFile, Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME);
            return new DriverAuthentication(privateKey, peersFile, peers, stamp, require, updatePackets);
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

    /**
     * For the transport engines.
     *
     * @return the identity and policy, whose trusted-key test follows the allow-list in force.
     */
    AuthSettings settings()
    {
        return settings;
    }

    /**
     * The allow-list in force.
     *
     * @return the trusted peers last loaded.
     */
    TrustedPeers trustedPeers()
    {
        return trustedPeers;
    }

    /**
     * Conductor: read the allow-list again when its file's modification time, size or identity changed since it was
     * last read. A file that cannot be read or used leaves the list in force and is tried again at the next change.
     *
     * @return true when a new list is in force (connections of keys it no longer holds are to be closed).
     * @throws ConfigurationException naming {@link Configuration#AUTH_TRUSTED_PEERS_FILE_PROP_NAME} and the problem
     *                                when the changed file cannot be used.
     */
    boolean reloadIfChanged()
    {
        final Object stamp;
        try
        {
            stamp = fileStamp(trustedPeersFile);
        }
        catch (final ConfigurationException ex)
        {
            if (null == fileStamp)
            {
                return false;
            }
            fileStamp = null;
            throw ex;
        }
        if (stamp.equals(fileStamp))
        {
            return false;
        }
        fileStamp = stamp;
        trustedPeers = TrustedPeers.load(trustedPeersFile, Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME);

        return true;
    }

    private static Object fileStamp(final Path file)
    {
        try
        {
            final BasicFileAttributes attributes =
                Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return List.of(attributes.lastModifiedTime(), attributes.size(),
                Objects.requireNonNullElse(attributes.fileKey(), ""));
        }
        catch (final IOException ex)
        {
            throw fail(Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME, "cannot be read (" + ex + ")", file);
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
