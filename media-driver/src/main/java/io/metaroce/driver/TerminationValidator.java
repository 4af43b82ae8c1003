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

import org.agrona.DirectBuffer;

import java.io.File;

/**
 * Decides whether a TERMINATE_DRIVER command may shut the driver down. The default, built from
 * {@link Configuration#TERMINATION_TOKEN_PROP_NAME}, denies every request unless a token is configured and the
 * command carries exactly that token.
 */
@FunctionalInterface
public interface TerminationValidator
{
    /**
     * Should the driver terminate?
     *
     * @param driverDirectory of the driver.
     * @param tokenBuffer     holding the token the command carries.
     * @param tokenOffset     of the token.
     * @param tokenLength     of the token.
     * @return true to terminate.
     */
    boolean allowTermination(File driverDirectory, DirectBuffer tokenBuffer, int tokenOffset, int tokenLength);
}
