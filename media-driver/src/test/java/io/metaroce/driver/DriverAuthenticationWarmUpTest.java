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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The handshake warm-up a driver with a key file runs at its start: done by the driver's start, once per JVM.
 */
class DriverAuthenticationWarmUpTest
{
    @Test
    void shouldHaveWarmedUpOnceADriverWithAKeyFileConcluded(@TempDir final Path dir) throws Exception
    {
        final AuthIdentity identity = AuthIdentity.create(dir, "driver");
        new MediaDriver.Context()
            .authKeyFile(identity.keyFile().toString())
            .trustedPeersFile(AuthIdentity.allowList(dir, "driver", identity.line("")).toString())
            .conclude();

        // the context's start ran it (or an earlier driver of this JVM did): nothing is left to warm up
        assertEquals(0, DriverAuthentication.warmUpOnce());
    }
}
