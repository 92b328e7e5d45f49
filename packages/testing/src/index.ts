// The provider conformance kit. API (being implemented):
//   conformanceCases(options?) -> ConformanceCase[]   (each {id, title, run(ctx)})
//   runConformance(makeProvider, options?) -> Promise<ConformanceReport>
//   writeConformanceFixture(dir), conformanceFixtureSkill()
export {};
