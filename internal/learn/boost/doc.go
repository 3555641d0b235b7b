// Package boost is gradient-boosted trees reproducing XGBoost's exact
// greedy method with native (sparsity-aware, MIA) missing values: Fit for
// regression (reg:squarederror), FitClass for classification
// (binary:logistic, multi:softprob), both bit for bit against XGBoost
// 1.7.4 on the fixtures in testdata.
package boost
