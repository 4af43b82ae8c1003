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
/**
 * Test support for applications of MetaRoCE: {@link io.metaroce.test.EmbeddedDriver} starts an embedded media driver
 * in a fresh directory, hands out connected clients, prints the driver's error log on request and removes what it
 * created when closed, for any test framework; {@link io.metaroce.test.MetaRoceExtension} does the same around every
 * JUnit 5 test and prints the error log when a test fails.
 */
package io.metaroce.test;
