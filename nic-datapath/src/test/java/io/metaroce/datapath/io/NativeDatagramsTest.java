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
package io.metaroce.datapath.io;

import io.netty.util.Version;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The Netty binding, {@link NativeDatagrams}: the contract of {@link PrivateApiBindingTest}, on the Netty version the
 * root POM pins; what its calls do is checked by {@link BatchedUdpTransportTest}.
 */
class NativeDatagramsTest extends PrivateApiBindingTest
{
    PrivateApiBinding binding()
    {
        return NativeDatagrams.BINDING;
    }

    @Test
    void shouldShipTheNativeLibraryForBothLinuxArchitectures()
    {
        // Netty loads META-INF/native/lib<name>_<arch>.so for the architecture it runs on: aarch64 needs its own
        for (final String arch : new String[]{ "x86_64", "aarch_64" })
        {
            final String library = "META-INF/native/libnetty_transport_native_epoll_" + arch + ".so";
            assertNotNull(NativeDatagrams.class.getClassLoader().getResource(library), "not on the class path: " +
                library);
        }
    }

    boolean runsCheckedVersion()
    {
        final Version classes = Version.identify().get("netty-transport-classes-epoll");
        final int feature = Runtime.version().feature();
        return null != classes && NativeDatagrams.CHECKED_NETTY_VERSION.equals(classes.artifactVersion()) &&
            feature >= JdkDatagramReceive.OLDEST_CHECKED_JDK && feature <= JdkDatagramReceive.NEWEST_CHECKED_JDK;
    }
}
